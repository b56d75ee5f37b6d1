//! `TwitterAPI` (`posting_api.py`): tweets, comments, retweets and
//! follows of one user.
//!
//! Python behaviour kept on purpose:
//! - `post_tweet`'s default `mentions=[]` is one list object shared by every
//!   call of the process that omits `mentions` (Python evaluates a default
//!   once): `mention` on such a tweet extends that shared list, so every
//!   tweet posted without mentions, in every instance created with the same
//!   [`super::Globals`], shows the new names. The shared list lives
//!   in `Globals::post_tweet_mentions`. Binding cannot tell an omitted
//!   argument from an explicit `[]`, so the signature's default is the
//!   sentinel [`MENTIONS_DEFAULT`] (a bytes literal no decoder produces).
//!   `tags=[]` is never mutated, so its default is a plain `[]`.
//! - Tweet ids are looked up with Python's `==` (`1.0` and `True` find tweet
//!   `1`, and are then stored as given in `retweets`/`comments`); a `str`
//!   id finds nothing; a list id raises `unhashable type: 'list'`.
//! - `mention` extends with any iterable (a string adds its characters).
//!
//! Not the reference's (inputs it would crash on, or a decoder never
//! produces): a scenario tweet key that `int()` cannot read is kept as it
//! is (the official `_load_scenario` raises); a bytes `keyword` in
//! `search_tweets` raises a text of ours. Nothing here depends on time,
//! hashing or randomness. Every call costs time linear in the instance's
//! state.

use std::sync::Arc;
use std::sync::{Mutex, PoisonError};

use super::Globals;
use super::py_num::iterate;
use super::py_ops::{Finder, contains, dict, int, key_position, len, no_attribute, text, truthy};
use crate::benchmarks::bfcl::check_values::py_lower;
use crate::benchmarks::bfcl::multi_turn::api::{ApiClass, Output, Param, Signature};
use crate::benchmarks::bfcl::multi_turn::state::State;
use crate::benchmarks::python::PyValue;
use crate::benchmarks::python::value::{DictBuilder, py_eq};

/// The default of `post_tweet`'s `mentions`: stands for the shared list.
pub const MENTIONS_DEFAULT: &str = "b'itc: the shared default list of post_tweet(mentions)'";

const METHODS: &[Signature] = &[
    Signature {
        name: "authenticate_twitter",
        params: &[Param::required("username"), Param::required("password")],
    },
    Signature {
        name: "posting_get_login_status",
        params: &[],
    },
    Signature {
        name: "post_tweet",
        params: &[
            Param::required("content"),
            Param::optional("tags", "[]"),
            Param::optional("mentions", MENTIONS_DEFAULT),
        ],
    },
    Signature {
        name: "retweet",
        params: &[Param::required("tweet_id")],
    },
    Signature {
        name: "comment",
        params: &[
            Param::required("tweet_id"),
            Param::required("comment_content"),
        ],
    },
    Signature {
        name: "mention",
        params: &[
            Param::required("tweet_id"),
            Param::required("mentioned_usernames"),
        ],
    },
    Signature {
        name: "follow_user",
        params: &[Param::required("username_to_follow")],
    },
    Signature {
        name: "list_all_following",
        params: &[],
    },
    Signature {
        name: "unfollow_user",
        params: &[Param::required("username_to_unfollow")],
    },
    Signature {
        name: "get_tweet",
        params: &[Param::required("tweet_id")],
    },
    Signature {
        name: "get_user_tweets",
        params: &[Param::required("username")],
    },
    Signature {
        name: "search_tweets",
        params: &[Param::required("keyword")],
    },
    Signature {
        name: "get_tweet_comments",
        params: &[Param::required("tweet_id")],
    },
    Signature {
        name: "get_user_stats",
        params: &[Param::required("username")],
    },
];

/// A stored tweet: a dict, whose `"mentions"` may be the shared default
/// list (then its own entry is a placeholder).
#[derive(Debug)]
struct Tweet {
    value: PyValue,
    shares_default_mentions: bool,
}

/// One `TwitterAPI` instance.
#[derive(Debug)]
pub struct TwitterApi {
    username: PyValue,
    password: PyValue,
    authenticated: PyValue,
    tweets: Vec<(PyValue, Tweet)>,
    comments: Vec<(PyValue, PyValue)>,
    retweets: Vec<(PyValue, PyValue)>,
    following_list: PyValue,
    tweet_counter: PyValue,
    shared_mentions: Arc<Mutex<Vec<PyValue>>>,
}

fn not_authenticated(action: &str) -> Output {
    Output::Value(dict([(
        "error",
        text(&format!(
            "User not authenticated. Please authenticate before {action}."
        )),
    )]))
}

fn not_found(tweet_id: &PyValue) -> Output {
    let id = crate::benchmarks::python::PyStr(crate::benchmarks::python::py_str(tweet_id));
    let mut message = crate::benchmarks::python::cps("Tweet with ID ");
    message.extend(id.0);
    message.extend(crate::benchmarks::python::cps(" not found."));
    Output::Value(dict([(
        "error",
        PyValue::Str(crate::benchmarks::python::PyStr(message)),
    )]))
}

/// `int(k)` for a scenario tweet key (a JSON object key, so a `str`).
fn int_key(key: &PyValue) -> PyValue {
    if let PyValue::Str(s) = key {
        let t = s.to_string_lossy();
        let t = t.trim().replace('_', "");
        if let Ok(i) = t.parse::<i128>() {
            return int(i);
        }
    }
    key.clone()
}

fn dict_entries(value: Option<&PyValue>) -> Vec<(PyValue, PyValue)> {
    match value {
        Some(PyValue::Dict(entries)) => entries.clone(),
        _ => Vec::new(),
    }
}

impl TwitterApi {
    /// `TwitterAPI()` then `_load_scenario(config)`.
    pub fn new(config: &PyValue, globals: &Globals) -> TwitterApi {
        let get = |key: &str, default: PyValue| config.get_str(key).cloned().unwrap_or(default);
        let mut tweets = DictBuilder::new();
        for (k, v) in dict_entries(config.get_str("tweets")) {
            tweets.insert(int_key(&k), v);
        }
        TwitterApi {
            username: get("username", text("john")),
            password: get("password", text("john123")),
            authenticated: get("authenticated", PyValue::Bool(false)),
            tweets: tweets
                .finish()
                .into_iter()
                .map(|(k, value)| {
                    let tweet = Tweet {
                        value,
                        shares_default_mentions: false,
                    };
                    (k, tweet)
                })
                .collect(),
            comments: dict_entries(config.get_str("comments")),
            retweets: dict_entries(config.get_str("retweets")),
            following_list: get(
                "following_list",
                PyValue::List(vec![text("alice"), text("bob")]),
            ),
            tweet_counter: get("tweet_counter", int(0)),
            shared_mentions: Arc::clone(&globals.post_tweet_mentions),
        }
    }

    /// A tweet as Python holds it (the shared mentions filled in).
    fn tweet_value(&self, tweet: &Tweet) -> PyValue {
        match (&tweet.value, tweet.shares_default_mentions) {
            (PyValue::Dict(entries), true) => PyValue::Dict(
                entries
                    .iter()
                    .map(|(k, v)| {
                        if py_eq(k, &text("mentions")) {
                            (
                                k.clone(),
                                PyValue::List(
                                    self.shared_mentions
                                        .lock()
                                        .unwrap_or_else(PoisonError::into_inner)
                                        .clone(),
                                ),
                            )
                        } else {
                            (k.clone(), v.clone())
                        }
                    })
                    .collect(),
            ),
            (value, _) => value.clone(),
        }
    }

    fn find_tweet(&self, tweet_id: &PyValue) -> Result<Option<usize>, String> {
        key_position(&self.tweets, tweet_id)
    }

    fn authenticate(&mut self, username: &PyValue, password: &PyValue) -> Output {
        let ok = py_eq(username, &self.username) && py_eq(password, &self.password);
        if ok {
            self.authenticated = PyValue::Bool(true);
        }
        Output::Value(dict([("authentication_status", PyValue::Bool(ok))]))
    }

    fn post_tweet(
        &mut self,
        content: PyValue,
        tags: PyValue,
        mentions: PyValue,
    ) -> Result<Output, String> {
        if !truthy(&self.authenticated) {
            return Ok(not_authenticated("posting"));
        }
        let shared = mentions == literal_default();
        let tweet = dict([
            ("id", self.tweet_counter.clone()),
            ("username", self.username.clone()),
            ("content", content),
            ("tags", tags),
            ("mentions", if shared { PyValue::None } else { mentions }),
        ]);
        let stored = Tweet {
            value: tweet,
            shares_default_mentions: shared,
        };
        let returned = self.tweet_value(&stored);
        // `self.tweets[self.tweet_counter] = tweet`: an existing key keeps
        // its place and takes the new tweet.
        match self.find_tweet(&self.tweet_counter)? {
            Some(i) => self.tweets[i].1 = stored,
            None => self.tweets.push((self.tweet_counter.clone(), stored)),
        }
        self.tweet_counter = add_one(&self.tweet_counter)?;
        Ok(Output::Value(returned))
    }

    fn retweet(&mut self, tweet_id: PyValue) -> Result<Output, String> {
        if !truthy(&self.authenticated) {
            return Ok(not_authenticated("retweeting"));
        }
        if self.find_tweet(&tweet_id)?.is_none() {
            return Ok(not_found(&tweet_id));
        }
        let at = match key_position(&self.retweets, &self.username)? {
            Some(i) => i,
            None => {
                self.retweets
                    .push((self.username.clone(), PyValue::List(vec![])));
                self.retweets.len() - 1
            }
        };
        let list = &mut self.retweets[at].1;
        if contains(list, &tweet_id)? {
            return Ok(Output::Value(dict([(
                "retweet_status",
                text("Already retweeted"),
            )])));
        }
        append(list, tweet_id)?;
        Ok(Output::Value(dict([(
            "retweet_status",
            text("Successfully retweeted"),
        )])))
    }

    fn comment(&mut self, tweet_id: PyValue, content: PyValue) -> Result<Output, String> {
        if !truthy(&self.authenticated) {
            return Ok(not_authenticated("commenting"));
        }
        if self.find_tweet(&tweet_id)?.is_none() {
            return Ok(not_found(&tweet_id));
        }
        let at = match key_position(&self.comments, &tweet_id)? {
            Some(i) => i,
            None => {
                self.comments.push((tweet_id, PyValue::List(vec![])));
                self.comments.len() - 1
            }
        };
        let entry = dict([("username", self.username.clone()), ("content", content)]);
        append(&mut self.comments[at].1, entry)?;
        Ok(Output::Value(dict([(
            "comment_status",
            text("Comment added successfully"),
        )])))
    }

    fn mention(&mut self, tweet_id: PyValue, names: PyValue) -> Result<Output, String> {
        let Some(at) = self.find_tweet(&tweet_id)? else {
            return Ok(not_found(&tweet_id));
        };
        let tweet = &mut self.tweets[at].1;
        if tweet.shares_default_mentions {
            let added = iterate(&names)?;
            self.shared_mentions
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend(added);
        } else {
            let mentions = item_mut(&mut tweet.value, "mentions")?;
            match mentions {
                PyValue::List(items) => items.extend(iterate(&names)?),
                other => return Err(no_attribute(other, "extend")),
            }
        }
        Ok(Output::Value(dict([(
            "mention_status",
            text("Users mentioned successfully"),
        )])))
    }

    fn follow(&mut self, name: PyValue) -> Result<Output, String> {
        if !truthy(&self.authenticated) {
            return Ok(not_authenticated("following"));
        }
        if contains(&self.following_list, &name)? {
            return Ok(Output::Value(dict([(
                "follow_status",
                PyValue::Bool(false),
            )])));
        }
        append(&mut self.following_list, name)?;
        Ok(Output::Value(dict([(
            "follow_status",
            PyValue::Bool(true),
        )])))
    }

    fn unfollow(&mut self, name: PyValue) -> Result<Output, String> {
        if !truthy(&self.authenticated) {
            return Ok(not_authenticated("unfollowing"));
        }
        if !contains(&self.following_list, &name)? {
            return Ok(Output::Value(dict([(
                "unfollow_status",
                PyValue::Bool(false),
            )])));
        }
        match &mut self.following_list {
            PyValue::List(items) => {
                if let Some(i) = items.iter().position(|x| py_eq(x, &name)) {
                    items.remove(i);
                }
            }
            other => return Err(no_attribute(other, "remove")),
        }
        Ok(Output::Value(dict([(
            "unfollow_status",
            PyValue::Bool(true),
        )])))
    }

    /// The tweets whose `"username"` equals `username`.
    fn user_tweets(&self, username: &PyValue) -> Result<Vec<PyValue>, String> {
        let mut out = Vec::new();
        for (_, tweet) in &self.tweets {
            let value = self.tweet_value(tweet);
            if py_eq(&item(&value, "username")?, username) {
                out.push(value);
            }
        }
        Ok(out)
    }

    fn search(&self, keyword: &PyValue) -> Result<Output, String> {
        let mut out = Vec::new();
        for (_, tweet) in &self.tweets {
            let key = lower(keyword)?;
            let value = self.tweet_value(tweet);
            let content = lower(&item(&value, "content")?)?;
            let hit = Finder::new(&key).is_in(&content) || {
                let mut tags = Vec::new();
                for tag in iterate(&item(&value, "tags")?)? {
                    tags.push(lower(&tag)?);
                }
                tags.contains(&key)
            };
            if hit {
                out.push(value);
            }
        }
        Ok(Output::Value(PyValue::List(out)))
    }

    fn comments_of(&self, tweet_id: &PyValue) -> Result<Output, String> {
        if self.find_tweet(tweet_id)?.is_none() {
            return Ok(not_found(tweet_id));
        }
        let found = key_position(&self.comments, tweet_id)?;
        Ok(Output::Value(match found {
            Some(i) => self.comments[i].1.clone(),
            None => PyValue::List(vec![]),
        }))
    }

    fn user_stats(&self, username: &PyValue) -> Result<Output, String> {
        let tweet_count = self.user_tweets(username)?.len();
        let following_count = if py_eq(username, &self.username) {
            len(&self.following_list)?
        } else {
            0
        };
        let retweet_count = match key_position(&self.retweets, username)? {
            Some(i) => len(&self.retweets[i].1)?,
            None => 0,
        };
        Ok(Output::Value(dict([
            ("tweet_count", int(tweet_count as i128)),
            ("following_count", int(following_count as i128)),
            ("retweet_count", int(retweet_count as i128)),
        ])))
    }
}

/// The bound value of an omitted `mentions`.
fn literal_default() -> PyValue {
    crate::benchmarks::python::literal_eval(MENTIONS_DEFAULT).unwrap_or(PyValue::None)
}

/// `x + 1` for the tweet counter.
fn add_one(v: &PyValue) -> Result<PyValue, String> {
    match v {
        PyValue::Bool(b) => Ok(int(i128::from(*b) + 1)),
        PyValue::Int(t) => t
            .parse::<i128>()
            .ok()
            .and_then(|i| i.checked_add(1))
            .map(int)
            .ok_or_else(|| "tweet_counter beyond 128 bits (not supported by itc)".to_string()),
        PyValue::Float(x) => Ok(PyValue::Float(x + 1.0)),
        other => Err(format!(
            "unsupported operand type(s) for +=: '{}' and 'int'",
            other.type_name()
        )),
    }
}

/// `list.append(x)`.
fn append(list: &mut PyValue, x: PyValue) -> Result<(), String> {
    match list {
        PyValue::List(items) => {
            items.push(x);
            Ok(())
        }
        other => Err(no_attribute(other, "append")),
    }
}

/// `tweet[key]` for a `str` key.
fn item(value: &PyValue, key: &str) -> Result<PyValue, String> {
    match value {
        PyValue::Dict(_) => value
            .get_str(key)
            .cloned()
            .ok_or_else(|| format!("'{key}'")),
        other => Err(subscript_error(other)),
    }
}

fn item_mut<'a>(value: &'a mut PyValue, key: &str) -> Result<&'a mut PyValue, String> {
    match value {
        PyValue::Dict(entries) => entries
            .iter_mut()
            .find(|(k, _)| py_eq(k, &text(key)))
            .map(|(_, v)| v)
            .ok_or_else(|| format!("'{key}'")),
        other => Err(subscript_error(other)),
    }
}

fn subscript_error(value: &PyValue) -> String {
    match value {
        PyValue::Str(_) => "string indices must be integers, not 'str'".into(),
        PyValue::List(_) | PyValue::Tuple(_) => format!(
            "{} indices must be integers or slices, not str",
            value.type_name()
        ),
        other => format!("'{}' object is not subscriptable", other.type_name()),
    }
}

/// `s.lower()` of a `str`.
fn lower(v: &PyValue) -> Result<Vec<u32>, String> {
    match v {
        PyValue::Str(s) => Ok(py_lower(&s.0)),
        PyValue::Bytes(_) => Err("bytes arguments are not supported by itc's TwitterAPI".into()),
        other => Err(no_attribute(other, "lower")),
    }
}

impl ApiClass for TwitterApi {
    fn class_name(&self) -> &'static str {
        "TwitterAPI"
    }

    fn methods(&self) -> &'static [Signature] {
        METHODS
    }

    fn call(&mut self, method: &str, args: Vec<PyValue>) -> Result<Output, String> {
        let mut args = args.into_iter();
        let mut next = || args.next().unwrap_or(PyValue::None);
        match method {
            "authenticate_twitter" => {
                let (u, p) = (next(), next());
                Ok(self.authenticate(&u, &p))
            }
            "posting_get_login_status" => Ok(Output::Value(dict([(
                "login_status",
                PyValue::Bool(truthy(&self.authenticated)),
            )]))),
            "post_tweet" => {
                let (c, t, m) = (next(), next(), next());
                self.post_tweet(c, t, m)
            }
            "retweet" => self.retweet(next()),
            "comment" => {
                let (id, c) = (next(), next());
                self.comment(id, c)
            }
            "mention" => {
                let (id, names) = (next(), next());
                self.mention(id, names)
            }
            "follow_user" => self.follow(next()),
            "list_all_following" => {
                if !truthy(&self.authenticated) {
                    return Ok(not_authenticated("listing following"));
                }
                Ok(Output::Value(dict([(
                    "following_list",
                    self.following_list.clone(),
                )])))
            }
            "unfollow_user" => self.unfollow(next()),
            "get_tweet" => {
                let id = next();
                Ok(match self.find_tweet(&id)? {
                    Some(i) => Output::Value(self.tweet_value(&self.tweets[i].1)),
                    None => not_found(&id),
                })
            }
            "get_user_tweets" => Ok(Output::Value(PyValue::List(self.user_tweets(&next())?))),
            "search_tweets" => self.search(&next()),
            "get_tweet_comments" => self.comments_of(&next()),
            "get_user_stats" => self.user_stats(&next()),
            other => Err(format!("'TwitterAPI' object has no attribute '{other}'")),
        }
    }

    fn state(&self) -> Vec<(&'static str, State)> {
        let tweets = self
            .tweets
            .iter()
            .map(|(k, t)| (State::from(k), State::from(&self.tweet_value(t))))
            .collect();
        let pairs = |entries: &[(PyValue, PyValue)]| {
            State::Dict(
                entries
                    .iter()
                    .map(|(k, v)| (State::from(k), State::from(v)))
                    .collect(),
            )
        };
        vec![
            ("username", State::from(&self.username)),
            ("password", State::from(&self.password)),
            ("authenticated", State::from(&self.authenticated)),
            ("tweets", State::Dict(tweets)),
            ("comments", pairs(&self.comments)),
            ("retweets", pairs(&self.retweets)),
            ("following_list", State::from(&self.following_list)),
            ("tweet_counter", State::from(&self.tweet_counter)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::py_ops::testing::run;
    use super::*;
    use crate::benchmarks::bfcl::multi_turn::state::state_id;
    use crate::benchmarks::python::json_loads_str;

    /// `initial_config["TwitterAPI"]` of `multi_turn_base_4`.
    const BASE_4: &str = r##"{"username": "tech_guru", "password": "securePass123", "authenticated": true, "tweets": {"0": {"id": 0, "username": "tech_guru", "content": "Our refined findings on tech trends", "tags": ["#TechTrends", "#InsightfulTeam"], "mentions": ["@InsightfulTeam"]}}, "comments": {"1": [{"username": "tech_guru", "comment": "Excited to share our insights!"}]}, "retweets": {}, "following_list": ["tech_innovator", "future_visionary"], "tweet_counter": 2}"##;

    fn api(config: &str, globals: &Globals) -> TwitterApi {
        TwitterApi::new(&json_loads_str(config).unwrap(), globals)
    }

    #[test]
    fn a_posted_tweet_matches_the_reference_trace() {
        // multi_turn_base_4, round 0, turn 2: result string and state id.
        let mut a = api(BASE_4, &Globals::default());
        let got = run(
            &mut a,
            "post_tweet",
            &[
                "'Initial report content More unsorted data Unsorted data'",
                "['#currenttechtrend']",
                "['@Julia']",
            ],
        );
        assert_eq!(
            got,
            r##"{"id": 2, "username": "tech_guru", "content": "Initial report content More unsorted data Unsorted data", "tags": ["#currenttechtrend"], "mentions": ["@Julia"]}"##
        );
        assert_eq!(
            state_id(&a.state()),
            "85d86ee7d86f04961e25b6b303e2d3ab3e71b70186e717e6aa60739be00b4c10"
        );
    }

    #[test]
    fn the_default_mentions_list_is_shared_across_tweets_and_instances() {
        let globals = Globals::default();
        let mut a = api(BASE_4, &globals);
        let mut b = api(BASE_4, &globals);
        run(&mut a, "post_tweet", &["'x'"]);
        run(&mut a, "post_tweet", &["'y'", "[]", "[]"]);
        assert_eq!(
            run(&mut a, "mention", &["2", "['@z']"]),
            r#"{"mention_status": "Users mentioned successfully"}"#
        );
        // Python: `post_tweet('w')` in another instance returns the list
        // that `mention` extended; the explicit `[]` of tweet 3 stays empty.
        assert!(run(&mut b, "post_tweet", &["'w'"]).ends_with(r#""mentions": ["@z"]}"#));
        assert!(run(&mut a, "get_tweet", &["3"]).ends_with(r#""mentions": []}"#));
        run(&mut a, "mention", &["3", "'ab'"]);
        assert!(run(&mut a, "get_tweet", &["3"]).ends_with(r#""mentions": ["a", "b"]}"#));
        assert!(run(&mut a, "get_tweet", &["2.0"]).ends_with(r#""mentions": ["@z"]}"#));
    }

    #[test]
    fn hostile_arguments_raise_pythons_errors() {
        let mut a = api(BASE_4, &Globals::default());
        assert_eq!(
            run(&mut a, "retweet", &["[1]"]),
            "Error during execution: unhashable type: 'list'"
        );
        assert_eq!(
            run(&mut a, "get_tweet", &["'0'"]),
            r#"{"error": "Tweet with ID 0 not found."}"#
        );
        assert_eq!(
            run(&mut a, "search_tweets", &["5"]),
            "Error during execution: 'int' object has no attribute 'lower'"
        );
        assert_eq!(
            run(&mut a, "mention", &["0", "7"]),
            "Error during execution: 'int' object is not iterable"
        );
        // `True == 1`: retweeting tweet `True` stores `True`.
        run(&mut a, "retweet", &["0"]);
        assert_eq!(
            run(&mut a, "retweet", &["False"]),
            r#"{"retweet_status": "Already retweeted"}"#
        );
        assert_eq!(
            run(&mut a, "get_user_stats", &["'tech_guru'"]),
            r#"{"tweet_count": 1, "following_count": 2, "retweet_count": 1}"#
        );
        assert_eq!(
            run(&mut a, "search_tweets", &["'#TECHTRENDS'"]),
            "[{'id': 0, 'username': 'tech_guru', 'content': 'Our refined findings on tech trends', 'tags': ['#TechTrends', '#InsightfulTeam'], 'mentions': ['@InsightfulTeam']}]"
        );
    }

    #[test]
    fn defaults_apply_without_a_scenario() {
        let a = api("{}", &Globals::default());
        let state = a.state();
        assert_eq!(state[0].0, "username");
        assert_eq!(
            crate::benchmarks::bfcl::multi_turn::state::canonical_exact(&State::dict(state)),
            r#"{"authenticated":false,"comments":{},"following_list":["alice","bob"],"password":"john123","retweets":{},"tweet_counter":0,"tweets":{},"username":"john"}"#
        );
    }
}
