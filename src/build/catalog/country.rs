//! Deciding an API's country: ISO 3166-1 alpha-2 codes and names, the
//! country of a URL's domain (ccTLD), and country names in the API's own
//! name or description.
//!
//! Order of evidence (see [`decide`]): an explicit field; words in the
//! API's name or description that say it is global (`worldwide`, `more than
//! 90 countries`) → `GLOBAL`; a country-code top-level domain (`.jp` → JP, `.co.uk`/`.uk` → GB, `.gov`/`.mil`/`.edu` →
//! US); one country named in the API's name or description (`Brazilian CPF
//! lookup` → BR, `Berlin(DE) City Open Data` → DE); the `--country` flag; a
//! generic domain (`.com`, `.org`, `.io`, …) → `GLOBAL`; nothing at all →
//! `GLOBAL`.

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

/// The value for APIs that serve every country.
pub const GLOBAL: &str = "GLOBAL";

/// How an entry's country was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CountrySource {
    /// An explicit country field of the source record.
    Field,
    /// The country-code top-level domain of its URL (or a generic domain → GLOBAL).
    Url,
    /// One country named in its name or description.
    Text,
    /// The `--country` flag of the import.
    Flag,
    /// No evidence at all: GLOBAL.
    Default,
}

impl CountrySource {
    /// The name written in files and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            CountrySource::Field => "field",
            CountrySource::Url => "url",
            CountrySource::Text => "text",
            CountrySource::Flag => "flag",
            CountrySource::Default => "default",
        }
    }
}

/// ISO 3166-1 alpha-2 codes with short English names.
pub const COUNTRIES: &[(&str, &str)] = &[
    ("AD", "Andorra"),
    ("AE", "United Arab Emirates"),
    ("AF", "Afghanistan"),
    ("AG", "Antigua and Barbuda"),
    ("AI", "Anguilla"),
    ("AL", "Albania"),
    ("AM", "Armenia"),
    ("AO", "Angola"),
    ("AQ", "Antarctica"),
    ("AR", "Argentina"),
    ("AS", "American Samoa"),
    ("AT", "Austria"),
    ("AU", "Australia"),
    ("AW", "Aruba"),
    ("AX", "Åland Islands"),
    ("AZ", "Azerbaijan"),
    ("BA", "Bosnia and Herzegovina"),
    ("BB", "Barbados"),
    ("BD", "Bangladesh"),
    ("BE", "Belgium"),
    ("BF", "Burkina Faso"),
    ("BG", "Bulgaria"),
    ("BH", "Bahrain"),
    ("BI", "Burundi"),
    ("BJ", "Benin"),
    ("BL", "Saint Barthélemy"),
    ("BM", "Bermuda"),
    ("BN", "Brunei"),
    ("BO", "Bolivia"),
    ("BQ", "Caribbean Netherlands"),
    ("BR", "Brazil"),
    ("BS", "Bahamas"),
    ("BT", "Bhutan"),
    ("BV", "Bouvet Island"),
    ("BW", "Botswana"),
    ("BY", "Belarus"),
    ("BZ", "Belize"),
    ("CA", "Canada"),
    ("CC", "Cocos (Keeling) Islands"),
    ("CD", "DR Congo"),
    ("CF", "Central African Republic"),
    ("CG", "Republic of the Congo"),
    ("CH", "Switzerland"),
    ("CI", "Côte d'Ivoire"),
    ("CK", "Cook Islands"),
    ("CL", "Chile"),
    ("CM", "Cameroon"),
    ("CN", "China"),
    ("CO", "Colombia"),
    ("CR", "Costa Rica"),
    ("CU", "Cuba"),
    ("CV", "Cabo Verde"),
    ("CW", "Curaçao"),
    ("CX", "Christmas Island"),
    ("CY", "Cyprus"),
    ("CZ", "Czechia"),
    ("DE", "Germany"),
    ("DJ", "Djibouti"),
    ("DK", "Denmark"),
    ("DM", "Dominica"),
    ("DO", "Dominican Republic"),
    ("DZ", "Algeria"),
    ("EC", "Ecuador"),
    ("EE", "Estonia"),
    ("EG", "Egypt"),
    ("EH", "Western Sahara"),
    ("ER", "Eritrea"),
    ("ES", "Spain"),
    ("ET", "Ethiopia"),
    ("FI", "Finland"),
    ("FJ", "Fiji"),
    ("FK", "Falkland Islands"),
    ("FM", "Micronesia"),
    ("FO", "Faroe Islands"),
    ("FR", "France"),
    ("GA", "Gabon"),
    ("GB", "United Kingdom"),
    ("GD", "Grenada"),
    ("GE", "Georgia"),
    ("GF", "French Guiana"),
    ("GG", "Guernsey"),
    ("GH", "Ghana"),
    ("GI", "Gibraltar"),
    ("GL", "Greenland"),
    ("GM", "Gambia"),
    ("GN", "Guinea"),
    ("GP", "Guadeloupe"),
    ("GQ", "Equatorial Guinea"),
    ("GR", "Greece"),
    ("GS", "South Georgia and the South Sandwich Islands"),
    ("GT", "Guatemala"),
    ("GU", "Guam"),
    ("GW", "Guinea-Bissau"),
    ("GY", "Guyana"),
    ("HK", "Hong Kong"),
    ("HM", "Heard Island and McDonald Islands"),
    ("HN", "Honduras"),
    ("HR", "Croatia"),
    ("HT", "Haiti"),
    ("HU", "Hungary"),
    ("ID", "Indonesia"),
    ("IE", "Ireland"),
    ("IL", "Israel"),
    ("IM", "Isle of Man"),
    ("IN", "India"),
    ("IO", "British Indian Ocean Territory"),
    ("IQ", "Iraq"),
    ("IR", "Iran"),
    ("IS", "Iceland"),
    ("IT", "Italy"),
    ("JE", "Jersey"),
    ("JM", "Jamaica"),
    ("JO", "Jordan"),
    ("JP", "Japan"),
    ("KE", "Kenya"),
    ("KG", "Kyrgyzstan"),
    ("KH", "Cambodia"),
    ("KI", "Kiribati"),
    ("KM", "Comoros"),
    ("KN", "Saint Kitts and Nevis"),
    ("KP", "North Korea"),
    ("KR", "South Korea"),
    ("KW", "Kuwait"),
    ("KY", "Cayman Islands"),
    ("KZ", "Kazakhstan"),
    ("LA", "Laos"),
    ("LB", "Lebanon"),
    ("LC", "Saint Lucia"),
    ("LI", "Liechtenstein"),
    ("LK", "Sri Lanka"),
    ("LR", "Liberia"),
    ("LS", "Lesotho"),
    ("LT", "Lithuania"),
    ("LU", "Luxembourg"),
    ("LV", "Latvia"),
    ("LY", "Libya"),
    ("MA", "Morocco"),
    ("MC", "Monaco"),
    ("MD", "Moldova"),
    ("ME", "Montenegro"),
    ("MF", "Saint Martin"),
    ("MG", "Madagascar"),
    ("MH", "Marshall Islands"),
    ("MK", "North Macedonia"),
    ("ML", "Mali"),
    ("MM", "Myanmar"),
    ("MN", "Mongolia"),
    ("MO", "Macao"),
    ("MP", "Northern Mariana Islands"),
    ("MQ", "Martinique"),
    ("MR", "Mauritania"),
    ("MS", "Montserrat"),
    ("MT", "Malta"),
    ("MU", "Mauritius"),
    ("MV", "Maldives"),
    ("MW", "Malawi"),
    ("MX", "Mexico"),
    ("MY", "Malaysia"),
    ("MZ", "Mozambique"),
    ("NA", "Namibia"),
    ("NC", "New Caledonia"),
    ("NE", "Niger"),
    ("NF", "Norfolk Island"),
    ("NG", "Nigeria"),
    ("NI", "Nicaragua"),
    ("NL", "Netherlands"),
    ("NO", "Norway"),
    ("NP", "Nepal"),
    ("NR", "Nauru"),
    ("NU", "Niue"),
    ("NZ", "New Zealand"),
    ("OM", "Oman"),
    ("PA", "Panama"),
    ("PE", "Peru"),
    ("PF", "French Polynesia"),
    ("PG", "Papua New Guinea"),
    ("PH", "Philippines"),
    ("PK", "Pakistan"),
    ("PL", "Poland"),
    ("PM", "Saint Pierre and Miquelon"),
    ("PN", "Pitcairn Islands"),
    ("PR", "Puerto Rico"),
    ("PS", "Palestine"),
    ("PT", "Portugal"),
    ("PW", "Palau"),
    ("PY", "Paraguay"),
    ("QA", "Qatar"),
    ("RE", "Réunion"),
    ("RO", "Romania"),
    ("RS", "Serbia"),
    ("RU", "Russia"),
    ("RW", "Rwanda"),
    ("SA", "Saudi Arabia"),
    ("SB", "Solomon Islands"),
    ("SC", "Seychelles"),
    ("SD", "Sudan"),
    ("SE", "Sweden"),
    ("SG", "Singapore"),
    ("SH", "Saint Helena"),
    ("SI", "Slovenia"),
    ("SJ", "Svalbard and Jan Mayen"),
    ("SK", "Slovakia"),
    ("SL", "Sierra Leone"),
    ("SM", "San Marino"),
    ("SN", "Senegal"),
    ("SO", "Somalia"),
    ("SR", "Suriname"),
    ("SS", "South Sudan"),
    ("ST", "São Tomé and Príncipe"),
    ("SV", "El Salvador"),
    ("SX", "Sint Maarten"),
    ("SY", "Syria"),
    ("SZ", "Eswatini"),
    ("TC", "Turks and Caicos Islands"),
    ("TD", "Chad"),
    ("TF", "French Southern Territories"),
    ("TG", "Togo"),
    ("TH", "Thailand"),
    ("TJ", "Tajikistan"),
    ("TK", "Tokelau"),
    ("TL", "Timor-Leste"),
    ("TM", "Turkmenistan"),
    ("TN", "Tunisia"),
    ("TO", "Tonga"),
    ("TR", "Türkiye"),
    ("TT", "Trinidad and Tobago"),
    ("TV", "Tuvalu"),
    ("TW", "Taiwan"),
    ("TZ", "Tanzania"),
    ("UA", "Ukraine"),
    ("UG", "Uganda"),
    ("UM", "United States Minor Outlying Islands"),
    ("US", "United States"),
    ("UY", "Uruguay"),
    ("UZ", "Uzbekistan"),
    ("VA", "Vatican City"),
    ("VC", "Saint Vincent and the Grenadines"),
    ("VE", "Venezuela"),
    ("VG", "British Virgin Islands"),
    ("VI", "U.S. Virgin Islands"),
    ("VN", "Vietnam"),
    ("VU", "Vanuatu"),
    ("WF", "Wallis and Futuna"),
    ("WS", "Samoa"),
    ("YE", "Yemen"),
    ("YT", "Mayotte"),
    ("ZA", "South Africa"),
    ("ZM", "Zambia"),
    ("ZW", "Zimbabwe"),
];

/// Other names of countries accepted in explicit fields and looked for in
/// text (lower case).
const ALIASES: &[(&str, &str)] = &[
    ("usa", "US"),
    ("united states of america", "US"),
    ("u.s.a.", "US"),
    ("u.s.", "US"),
    ("uk", "GB"),
    ("u.k.", "GB"),
    ("great britain", "GB"),
    ("britain", "GB"),
    ("england", "GB"),
    ("scotland", "GB"),
    ("wales", "GB"),
    ("northern ireland", "GB"),
    ("korea", "KR"),
    ("republic of korea", "KR"),
    ("russian federation", "RU"),
    ("mainland china", "CN"),
    ("people's republic of china", "CN"),
    ("prc", "CN"),
    ("viet nam", "VN"),
    ("turkey", "TR"),
    ("czech republic", "CZ"),
    ("the netherlands", "NL"),
    ("holland", "NL"),
    ("ivory coast", "CI"),
    ("cape verde", "CV"),
    ("swaziland", "SZ"),
    ("burma", "MM"),
    ("east timor", "TL"),
    ("macau", "MO"),
    ("vatican", "VA"),
    ("uae", "AE"),
    ("emirates", "AE"),
    ("drc", "CD"),
    ("democratic republic of the congo", "CD"),
];

/// Demonyms that name a country and not (also) a language, looked for in text only.
const DEMONYMS: &[(&str, &str)] = &[
    ("argentine", "AR"),
    ("argentinian", "AR"),
    ("australian", "AU"),
    ("austrian", "AT"),
    ("bangladeshi", "BD"),
    ("belgian", "BE"),
    ("brazilian", "BR"),
    ("british", "GB"),
    ("canadian", "CA"),
    ("chilean", "CL"),
    ("colombian", "CO"),
    ("egyptian", "EG"),
    ("emirati", "AE"),
    ("indian", "IN"),
    ("israeli", "IL"),
    ("kenyan", "KE"),
    ("malaysian", "MY"),
    ("mexican", "MX"),
    ("new zealand", "NZ"),
    ("nigerian", "NG"),
    ("pakistani", "PK"),
    ("peruvian", "PE"),
    ("philippine", "PH"),
    ("singaporean", "SG"),
    ("south african", "ZA"),
    ("swiss", "CH"),
    ("taiwanese", "TW"),
];

/// Country names too often something else to count as evidence in free text
/// (a US state, a first name, a bird, a pig, a garment, …).
const AMBIGUOUS_IN_TEXT: &[&str] = &[
    "GE", "JO", "TD", "JE", "GG", "IM", "GN", "NE", "TO", "AS", "VI", "IO", "CC", "HM", "BV", "MF",
    "CK", "NU", "TK", "PN",
];

/// Aliases left to [`case_sensitive_codes`] (`us` is a pronoun) or too
/// often something else (`turkey`).
const TEXT_EXCLUDED_ALIASES: &[&str] = &["uk", "u.k.", "u.s.", "u.s.a.", "usa", "turkey", "prc"];

/// Words that say an API covers many countries: no text evidence then.
const GLOBAL_WORDS: &[&str] = &[
    "global",
    "globally",
    "worldwide",
    "around the world",
    "across the world",
    "all over the world",
    "the world's",
    "international",
    "internationally",
    "countries",
    "multinational",
    "every country",
    "any country",
];

/// Country-code top-level domains used as generic names (`.io`, `.ai`,
/// `.tv`, `.me`, …): they say nothing about the country unless under a
/// public second level such as `gov.co` or `com.co`.
const GENERIC_CCTLDS: &[&str] = &[
    "ac", "ad", "ag", "ai", "am", "as", "bz", "cc", "cd", "cf", "co", "cx", "dj", "eu", "fm", "ga",
    "gd", "gg", "gq", "gs", "gw", "im", "io", "la", "ly", "md", "me", "ml", "ms", "nu", "pw", "sc",
    "sh", "so", "sr", "st", "su", "tk", "tm", "to", "tv", "vc", "vg", "ws",
];

/// Second-level labels under which a generic ccTLD means its country.
const PUBLIC_SECOND_LEVELS: &[&str] = &[
    "com", "co", "org", "net", "gov", "gob", "go", "edu", "ac", "mil", "nic",
];

/// Internationalised ccTLDs (Unicode and punycode forms).
const IDN_CCTLDS: &[(&str, &str)] = &[
    ("рф", "RU"),
    ("xn--p1ai", "RU"),
    ("中国", "CN"),
    ("xn--fiqs8s", "CN"),
    ("中國", "CN"),
    ("xn--fiqz9s", "CN"),
    ("香港", "HK"),
    ("xn--j6w193g", "HK"),
    ("台湾", "TW"),
    ("xn--kprw13d", "TW"),
    ("台灣", "TW"),
    ("xn--kpry57d", "TW"),
    ("한국", "KR"),
    ("xn--3e0b707e", "KR"),
    ("भारत", "IN"),
    ("xn--h2brj9c", "IN"),
    ("ไทย", "TH"),
    ("xn--o3cw4h", "TH"),
    ("укр", "UA"),
    ("xn--j1amh", "UA"),
    ("бел", "BY"),
    ("xn--90ais", "BY"),
    ("مصر", "EG"),
    ("xn--wgbh1c", "EG"),
    ("السعودية", "SA"),
    ("xn--mgberp4a5d4ar", "SA"),
    ("امارات", "AE"),
    ("xn--mgbaam7a8h", "AE"),
    ("新加坡", "SG"),
    ("xn--yfro4i67o", "SG"),
];

/// The English name of a code, if it is an ISO 3166-1 alpha-2 code.
pub fn name_of(code: &str) -> Option<&'static str> {
    COUNTRIES
        .binary_search_by(|(c, _)| (*c).cmp(code))
        .ok()
        .map(|i| COUNTRIES[i].1)
}

/// Whether `code` is an upper-case ISO 3166-1 alpha-2 code.
pub fn is_code(code: &str) -> bool {
    name_of(code).is_some()
}

/// Reads an explicit country value: a code in any case, `GLOBAL`/`Global`,
/// or an English name (`Japan`, `USA`, `United Kingdom`).
pub fn normalize(value: &str) -> Option<String> {
    let value = value.trim();
    if value.eq_ignore_ascii_case("global")
        || value.eq_ignore_ascii_case("worldwide")
        || value.eq_ignore_ascii_case("international")
    {
        return Some(GLOBAL.to_string());
    }
    let upper = value.to_ascii_uppercase();
    if upper.len() == 2 && is_code(&upper) {
        return Some(upper);
    }
    if upper == "UK" {
        return Some("GB".to_string());
    }
    let lower = value.to_lowercase();
    COUNTRIES
        .iter()
        .find(|(_, name)| name.to_lowercase() == lower)
        .map(|(c, _)| (*c).to_string())
        .or_else(|| {
            ALIASES
                .iter()
                .find(|(alias, _)| *alias == lower)
                .map(|(_, c)| (*c).to_string())
        })
}

/// The host of a URL, lower case, without port or trailing dot; accepts
/// URLs without a scheme (`www.postman.com/x`). `None` for relative paths,
/// IP addresses and single-label hosts.
pub fn host_of(url: &str) -> Option<String> {
    let url = url.trim();
    let rest = match url.find("://") {
        Some(i) => &url[i + 3..],
        None => url.strip_prefix("//").unwrap_or(url),
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit('@').next().unwrap_or("");
    let host = authority.split(':').next().unwrap_or("");
    let host = host.trim_end_matches('.').to_lowercase();
    let is_ip = host.chars().all(|c| c.is_ascii_digit() || c == '.');
    let valid = host.contains('.')
        && !is_ip
        && host
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '.' || c == '_');
    valid.then_some(host)
}

/// What a URL's domain says about the country.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DomainEvidence {
    /// A country-code domain (or `.gov`/`.mil`/`.edu` for the US).
    Country(String),
    /// A generic domain (`.com`, `.org`, `.io`, `.eu`, …).
    Generic,
}

/// The country a host's top-level domain names, if any.
pub fn domain_evidence(host: &str) -> DomainEvidence {
    let labels: Vec<&str> = host.split('.').collect();
    let tld = labels[labels.len() - 1];
    let second = if labels.len() >= 3 {
        Some(labels[labels.len() - 2])
    } else {
        None
    };
    if let Some((_, code)) = IDN_CCTLDS.iter().find(|(t, _)| *t == tld) {
        return DomainEvidence::Country((*code).to_string());
    }
    match tld {
        "gov" | "mil" | "edu" => return DomainEvidence::Country("US".to_string()),
        "uk" => return DomainEvidence::Country("GB".to_string()),
        _ => {}
    }
    if tld.len() != 2 {
        return DomainEvidence::Generic;
    }
    let code = tld.to_ascii_uppercase();
    let generic =
        GENERIC_CCTLDS.contains(&tld) && !second.is_some_and(|s| PUBLIC_SECOND_LEVELS.contains(&s));
    if generic || !is_code(&code) {
        DomainEvidence::Generic
    } else {
        DomainEvidence::Country(code)
    }
}

/// Lower-cases, NFKC-normalises and reduces a text to words separated by
/// single spaces, padded with a space at both ends.
fn words(text: &str) -> String {
    let mut out = String::from(" ");
    for c in text.nfkc().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || c == '\'' {
            out.push(c);
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    if !out.ends_with(' ') {
        out.push(' ');
    }
    out
}

/// Removes every whole-word occurrence of `phrase` from `text`; returns
/// whether there was one.
fn take_phrase(text: &mut String, phrase: &str) -> bool {
    let needle = format!(" {} ", words(phrase).trim());
    if needle.trim().is_empty() || !text.contains(&needle) {
        return false;
    }
    *text = text.replace(&needle, " | ");
    true
}

/// Whether `(XX)` after these words defines an acronym of them
/// (`augmented reality (AR)`), rather than naming a country (`Gdańsk (PL)`).
fn is_acronym_of(code: &str, before: &[&str]) -> bool {
    let initials: String = before
        .iter()
        .rev()
        .take(code.len())
        .rev()
        .filter_map(|w| w.chars().find(|c| c.is_alphabetic()))
        .flat_map(char::to_uppercase)
        .collect();
    initials == code
}

/// The upper-case tokens `US`, `U.S.`, `UK` and parenthesised codes such
/// as `(DE)`, which only count in their exact case.
fn case_sensitive_codes(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let tokens: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',' || c == ';' || c == '/')
        .filter(|t| !t.is_empty())
        .collect();
    for (i, token) in tokens.iter().enumerate() {
        let bare = token.trim_matches(|c: char| matches!(c, '.' | ':' | '!' | '?' | '"'));
        match bare {
            "US" | "U.S" | "USA" | "U.S.A" => found.push("US".to_string()),
            "UK" | "U.K" => found.push("GB".to_string()),
            _ => {}
        }
        let Some(open) = bare.find('(') else {
            continue;
        };
        let attached = open > 0;
        let inner = bare[open + 1..].strip_suffix(')');
        if let Some(code) = inner
            && code.len() == 2
            && code.chars().all(|c| c.is_ascii_uppercase())
            && is_code(code)
            && (attached || !is_acronym_of(code, &tokens[..i]))
        {
            found.push(code.to_string());
        }
    }
    found
}

/// What an API's name and description say about its country.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextEvidence {
    /// It says it covers many countries (`global`, `worldwide`, `countries`, …).
    Global,
    /// It names exactly one country.
    Country(String),
}

/// What a text says about the country: global words, or the single country
/// it names; `None` when it names none or several.
pub fn text_evidence(text: &str) -> Option<TextEvidence> {
    let mut rest = words(text);
    if GLOBAL_WORDS
        .iter()
        .any(|w| rest.contains(&format!(" {w} ")))
    {
        return Some(TextEvidence::Global);
    }
    // "New Mexico" is a US state, not a country.
    rest = rest.replace(" new mexico ", " | ");
    let mut phrases: Vec<(&str, &str)> = COUNTRIES
        .iter()
        .filter(|(code, _)| !AMBIGUOUS_IN_TEXT.contains(code))
        .map(|(code, name)| (*name, *code))
        .chain(
            ALIASES
                .iter()
                .filter(|(alias, _)| !TEXT_EXCLUDED_ALIASES.contains(alias))
                .copied(),
        )
        .chain(DEMONYMS.iter().copied())
        .collect();
    // Longest first, so "Northern Ireland" is read before "Ireland".
    phrases.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
    let mut found: Vec<String> = Vec::new();
    for (phrase, code) in phrases {
        if take_phrase(&mut rest, phrase) {
            found.push(code.to_string());
        }
    }
    found.extend(case_sensitive_codes(text));
    found.sort();
    found.dedup();
    match found.as_slice() {
        [one] => Some(TextEvidence::Country(one.clone())),
        _ => None,
    }
}

/// The single country a text names, if it names exactly one and does not
/// say it is global.
pub fn country_in_text(text: &str) -> Option<String> {
    match text_evidence(text)? {
        TextEvidence::Country(code) => Some(code),
        TextEvidence::Global => None,
    }
}

/// The evidence [`decide`] weighs for one entry.
#[derive(Debug, Clone, Copy, Default)]
pub struct Evidence<'a> {
    /// The source's country field, when it has one.
    pub field: Option<&'a str>,
    /// URLs of the API, best first (endpoint, then home page).
    pub urls: &'a [&'a str],
    /// Name and description.
    pub text: &'a str,
    /// The `--country` flag (already a valid code or GLOBAL).
    pub flag: Option<&'a str>,
}

/// Decides the country of an entry and how. An explicit field that is not
/// a country is an error.
pub fn decide(evidence: &Evidence<'_>) -> Result<(String, CountrySource), String> {
    if let Some(value) = evidence.field.filter(|v| !v.trim().is_empty()) {
        return normalize(value)
            .map(|c| (c, CountrySource::Field))
            .ok_or_else(|| {
                format!("{value:?} is not an ISO 3166-1 alpha-2 code, a country name or GLOBAL")
            });
    }
    let text = text_evidence(evidence.text);
    let hosts: Vec<String> = evidence.urls.iter().filter_map(|u| host_of(u)).collect();
    let domain_country = hosts.iter().find_map(|h| match domain_evidence(h) {
        DomainEvidence::Country(code) => Some(code),
        DomainEvidence::Generic => None,
    });
    let global = || (GLOBAL.to_string(), CountrySource::Text);
    // "text" is reported only where the text decided; a generic domain and
    // global words agree, and the domain is named.
    Ok(match (domain_country, text, evidence.flag) {
        // "Public holidays for more than 90 countries" on a .at domain is global.
        (Some(_), Some(TextEvidence::Global), _) => global(),
        (Some(code), _, _) => (code, CountrySource::Url),
        (None, Some(TextEvidence::Country(code)), _) => (code, CountrySource::Text),
        (None, Some(TextEvidence::Global), Some(_)) => global(),
        (None, _, Some(flag)) => (flag.to_string(), CountrySource::Flag),
        (None, _, None) if !hosts.is_empty() => (GLOBAL.to_string(), CountrySource::Url),
        (None, Some(TextEvidence::Global), None) => global(),
        (None, None, None) => (GLOBAL.to_string(), CountrySource::Default),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url_country(url: &str) -> Option<String> {
        match domain_evidence(&host_of(url)?) {
            DomainEvidence::Country(c) => Some(c),
            DomainEvidence::Generic => None,
        }
    }

    #[test]
    fn table_is_sorted_and_complete() {
        assert!(COUNTRIES.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(COUNTRIES.len(), 249);
        assert_eq!(name_of("JP"), Some("Japan"));
        assert!(!is_code("UK") && !is_code("jp") && !is_code("EU"));
    }

    #[test]
    fn hosts_are_extracted() {
        assert_eq!(
            host_of("https://user@API.Example.co.uk:8443/v1?q=1").as_deref(),
            Some("api.example.co.uk")
        );
        assert_eq!(
            host_of("www.postman.com/collections").as_deref(),
            Some("www.postman.com")
        );
        assert_eq!(host_of("/v1/pets"), None);
        assert_eq!(host_of("http://127.0.0.1:8080/"), None);
        assert_eq!(host_of("http://localhost/"), None);
        assert_eq!(host_of(""), None);
    }

    #[test]
    fn cctlds_map_to_countries() {
        assert_eq!(
            url_country("https://www.jma.go.jp/bosai/").as_deref(),
            Some("JP")
        );
        assert_eq!(
            url_country("http://ratings.food.gov.uk/x").as_deref(),
            Some("GB")
        );
        assert_eq!(url_country("https://example.uk").as_deref(), Some("GB"));
        assert_eq!(
            url_country("https://www.census.gov/data").as_deref(),
            Some("US")
        );
        assert_eq!(
            url_country("https://brasilapi.com.br/").as_deref(),
            Some("BR")
        );
        assert_eq!(
            url_country("https://daten.berlin.de/").as_deref(),
            Some("DE")
        );
        assert_eq!(url_country("http://apis.juhe.cn/x").as_deref(), Some("CN"));
        assert_eq!(url_country("https://пример.рф/").as_deref(), Some("RU"));
        assert_eq!(
            url_country("https://www.datos.gov.co/").as_deref(),
            Some("CO")
        );
    }

    #[test]
    fn generic_domains_say_nothing() {
        for url in [
            "https://catfact.ninja/",
            "https://api.github.com",
            "https://alexwohlbruck.github.io/cat-facts/",
            "https://www.openuv.io",
            "https://docs.tomorrow.io",
            "https://open-meteo.com/",
            "https://random-d.uk.example.com/",
            "https://europa.eu/api",
            "https://place.dog",
            "https://theaxolotlapi.netlify.app/",
            "https://anime.tv/",
            "https://www.notion.so/API",
            "https://changelogs.md",
            "https://docs.mail.tm",
        ] {
            assert_eq!(url_country(url), None, "{url}");
        }
        // random-d.uk really is a .uk domain.
        assert_eq!(
            url_country("https://random-d.uk/api").as_deref(),
            Some("GB")
        );
    }

    #[test]
    fn explicit_values_are_normalised() {
        assert_eq!(normalize("jp").as_deref(), Some("JP"));
        assert_eq!(normalize("Global").as_deref(), Some("GLOBAL"));
        assert_eq!(normalize("Japan").as_deref(), Some("JP"));
        assert_eq!(normalize("USA").as_deref(), Some("US"));
        assert_eq!(normalize("UK").as_deref(), Some("GB"));
        assert_eq!(normalize("south korea").as_deref(), Some("KR"));
        assert_eq!(normalize("Atlantis"), None);
        assert_eq!(normalize("XX"), None);
    }

    #[test]
    fn one_named_country_is_evidence() {
        let t = |s| country_in_text(s);
        assert_eq!(t("Brazilian CPF lookup").as_deref(), Some("BR"));
        assert_eq!(t("Berlin(DE) City Open Data").as_deref(), Some("DE"));
        assert_eq!(t("New York (US) City Open Data").as_deref(), Some("US"));
        assert_eq!(t("US Public Data").as_deref(), Some("US"));
        assert_eq!(t("Transportistas de Argentina").as_deref(), Some("AR"));
        assert_eq!(t("Data from Northern Ireland").as_deref(), Some("GB"));
        assert_eq!(t("Indian court case status").as_deref(), Some("IN"));
        // Two countries, a global word, a pronoun, ambiguous names, languages: no evidence.
        assert_eq!(t("Trains in France and Spain"), None);
        assert_eq!(t("Global weather forecast API"), None);
        assert_eq!(
            t("AI regulation laws by jurisdiction (US, EU, global)"),
            None
        );
        assert_eq!(t("Tell us about your pets"), None);
        assert_eq!(t("Georgia state parks"), None);
        assert_eq!(t("Spanish dictionary"), None);
        assert_eq!(t("Weather in New Mexico"), None);
        assert_eq!(t("Indiana road works"), None);
        assert_eq!(t("Gdańsk (PL) City Open Data").as_deref(), Some("PL"));
        assert_eq!(t("Retrieve augmented reality (AR) information"), None);
        assert_eq!(t("Information Technology (IT) news"), None);
        assert_eq!(
            t("Unofficial Philippine Professional Regulation Commission (PRC) exams"),
            Some("PH".into())
        );
        assert_eq!(
            text_evidence("City Bikes around the world"),
            Some(TextEvidence::Global)
        );
    }

    #[test]
    fn evidence_is_weighed_in_order() {
        let decide_with = |field, urls: &[&str], text, flag| {
            decide(&Evidence {
                field,
                urls,
                text,
                flag,
            })
            .unwrap()
        };
        let field = decide_with(Some("jp"), &["https://x.de"], "", None);
        assert_eq!(field, ("JP".into(), CountrySource::Field));
        let url = decide_with(None, &["https://x.de"], "Brazil", Some("FR"));
        assert_eq!(url, ("DE".into(), CountrySource::Url));
        let global = decide_with(
            None,
            &["https://date.nager.at"],
            "Holidays of 90 countries",
            None,
        );
        assert_eq!(global, ("GLOBAL".into(), CountrySource::Text));
        let text = decide_with(None, &["https://x.com"], "Brazil data", Some("FR"));
        assert_eq!(text, ("BR".into(), CountrySource::Text));
        let flag = decide_with(None, &["https://x.com"], "cats", Some("FR"));
        assert_eq!(flag, ("FR".into(), CountrySource::Flag));
        let generic = decide_with(None, &["https://x.com"], "cats", None);
        assert_eq!(generic, ("GLOBAL".into(), CountrySource::Url));
        let agree = decide_with(None, &["https://x.com"], "Worldwide cats", None);
        assert_eq!(agree, ("GLOBAL".into(), CountrySource::Url));
        let over_flag = decide_with(None, &[], "Worldwide cats", Some("FR"));
        assert_eq!(over_flag, ("GLOBAL".into(), CountrySource::Text));
        let default = decide_with(None, &[], "cats", None);
        assert_eq!(default, ("GLOBAL".into(), CountrySource::Default));
        assert!(
            decide(&Evidence {
                field: Some("Atlantis"),
                ..Evidence::default()
            })
            .is_err()
        );
    }
}
