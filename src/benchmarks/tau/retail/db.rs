//! The retail database (`RetailDB` of `data_model.py`): products, users and
//! orders, each model with its fields in pydantic's order, read from
//! `db.json` and written back as `model_dump` gives it; the hash the
//! official environment computes of it.

use std::collections::HashMap;
use std::sync::OnceLock;

use anyhow::{Context, Result, anyhow, bail};

use super::json::{Dump, J, Number, write, write_str};
use crate::benchmarks::python::{PyStr, PyValue, json_loads_str};
use crate::util::hash::sha256_hex;

/// A `Dict[str, T]` of a model: insertion order kept, keys looked up in
/// constant time; each value's canonical text (`sort_keys=True`) kept until
/// the value is changed, so that hashing after a write re-serializes only
/// what the write touched.
#[derive(Debug, Clone)]
pub struct Table<T> {
    keys: Vec<String>,
    values: Vec<T>,
    index: HashMap<String, usize>,
    canonical: Vec<OnceLock<String>>,
    sorted: OnceLock<Vec<usize>>,
    /// Bumped by every access that may change a value.
    generation: u64,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table {
            keys: Vec::new(),
            values: Vec::new(),
            index: HashMap::new(),
            canonical: Vec::new(),
            sorted: OnceLock::new(),
            generation: 0,
        }
    }
}

impl<T> Table<T> {
    /// Inserts or replaces (a replaced key keeps its place, as in a dict).
    pub fn insert(&mut self, key: String, value: T) {
        self.generation += 1;
        match self.index.get(&key) {
            Some(&i) => {
                self.values[i] = value;
                self.canonical[i] = OnceLock::new();
            }
            None => {
                self.index.insert(key.clone(), self.values.len());
                self.keys.push(key);
                self.values.push(value);
                self.canonical.push(OnceLock::new());
                self.sorted = OnceLock::new();
            }
        }
    }

    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&T> {
        self.index.get(key).map(|&i| &self.values[i])
    }

    /// The value under `key`, to change.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut T> {
        let &i = self.index.get(key)?;
        self.generation += 1;
        self.canonical[i] = OnceLock::new();
        Some(&mut self.values[i])
    }

    /// A number that changes whenever a value may have changed.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Whether `key` is there.
    pub fn contains(&self, key: &str) -> bool {
        self.index.contains_key(key)
    }

    /// Keys and values in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &T)> {
        self.keys.iter().map(String::as_str).zip(&self.values)
    }

    /// The values in insertion order.
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.values.iter()
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    fn dump_with<'a>(&'a self, f: impl Fn(&'a T) -> J<'a>) -> J<'a> {
        J::Map(self.iter().map(|(k, v)| (k, f(v))).collect())
    }
}

impl<T: Dump> Table<T> {
    /// `json.dumps(table, sort_keys=True)`, appended to `out`.
    fn write_canonical(&self, out: &mut String) {
        let sorted = self.sorted.get_or_init(|| {
            let mut order: Vec<usize> = (0..self.keys.len()).collect();
            order.sort_by(|&a, &b| self.keys[a].cmp(&self.keys[b]));
            order
        });
        out.push('{');
        for (n, &i) in sorted.iter().enumerate() {
            if n > 0 {
                out.push_str(", ");
            }
            write_str(out, &self.keys[i]);
            out.push_str(": ");
            out.push_str(self.canonical[i].get_or_init(|| {
                let mut text = String::new();
                write(&mut text, &self.values[i].dump(), true);
                text
            }));
        }
        out.push('}');
    }
}

/// `Dict[str, str]` (options of a variant or an item).
pub type Options = Vec<(String, String)>;

fn dump_options(options: &Options) -> J<'_> {
    J::Map(
        options
            .iter()
            .map(|(k, v)| (k.as_str(), J::Str(v)))
            .collect(),
    )
}

/// A product variant (`Variant`): an item id with its options and price.
#[derive(Debug, Clone)]
pub struct Variant {
    /// `item_id`.
    pub item_id: String,
    /// `options`.
    pub options: Options,
    /// `available`.
    pub available: bool,
    /// `price`.
    pub price: f64,
}

impl Dump for Variant {
    fn fields(&self) -> Vec<(&str, J<'_>)> {
        vec![
            ("item_id", J::Str(&self.item_id)),
            ("options", dump_options(&self.options)),
            ("available", J::Bool(self.available)),
            ("price", J::Num(Number::Float(self.price))),
        ]
    }
}

/// A product (`Product`) and its variants by item id.
#[derive(Debug, Clone)]
pub struct Product {
    /// `name`.
    pub name: String,
    /// `product_id`.
    pub product_id: String,
    /// `variants`.
    pub variants: Table<Variant>,
}

impl Dump for Product {
    fn fields(&self) -> Vec<(&str, J<'_>)> {
        vec![
            ("name", J::Str(&self.name)),
            ("product_id", J::Str(&self.product_id)),
            ("variants", self.variants.dump_with(Dump::dump)),
        ]
    }
}

/// An address (`UserAddress`); its fields may come from a tool call, so
/// they are Python strings.
#[derive(Debug, Clone, PartialEq)]
pub struct Address {
    /// `address1`, `address2`, `city`, `country`, `state`, `zip`, in this
    /// (pydantic's) order.
    pub fields: [PyStr; 6],
}

/// The field names of [`Address`], in pydantic's order.
pub const ADDRESS_FIELDS: [&str; 6] = ["address1", "address2", "city", "country", "state", "zip"];

impl Address {
    /// `zip`.
    pub fn zip(&self) -> &PyStr {
        &self.fields[5]
    }
}

impl Dump for Address {
    fn fields(&self) -> Vec<(&str, J<'_>)> {
        ADDRESS_FIELDS
            .iter()
            .zip(&self.fields)
            .map(|(name, value)| (*name, J::Text(value)))
            .collect()
    }
}

/// A payment method (`CreditCard`, `Paypal` or `GiftCard`).
#[derive(Debug, Clone)]
pub enum PaymentMethod {
    /// `source: "credit_card"`, `id`, `brand`, `last_four`.
    CreditCard {
        /// `id`.
        id: String,
        /// `brand`.
        brand: String,
        /// `last_four`.
        last_four: String,
    },
    /// `source: "paypal"`, `id`.
    Paypal {
        /// `id`.
        id: String,
    },
    /// `source: "gift_card"`, `id`, `balance` (the redefined `id` keeps the
    /// base class's place).
    GiftCard {
        /// `id`.
        id: String,
        /// `balance`.
        balance: f64,
    },
}

impl Dump for PaymentMethod {
    fn fields(&self) -> Vec<(&str, J<'_>)> {
        match self {
            PaymentMethod::CreditCard {
                id,
                brand,
                last_four,
            } => vec![
                ("source", J::Str("credit_card")),
                ("id", J::Str(id)),
                ("brand", J::Str(brand)),
                ("last_four", J::Str(last_four)),
            ],
            PaymentMethod::Paypal { id } => {
                vec![("source", J::Str("paypal")), ("id", J::Str(id))]
            }
            PaymentMethod::GiftCard { id, balance } => vec![
                ("source", J::Str("gift_card")),
                ("id", J::Str(id)),
                ("balance", J::Num(Number::Float(*balance))),
            ],
        }
    }
}

/// A user (`User`).
#[derive(Debug, Clone)]
pub struct User {
    /// `user_id`.
    pub user_id: String,
    /// `name.first_name`.
    pub first_name: String,
    /// `name.last_name`.
    pub last_name: String,
    /// `address`.
    pub address: Address,
    /// `email`.
    pub email: String,
    /// `payment_methods`.
    pub payment_methods: Table<PaymentMethod>,
    /// `orders`.
    pub orders: Vec<String>,
}

impl Dump for User {
    fn fields(&self) -> Vec<(&str, J<'_>)> {
        let name = J::Map(vec![
            ("first_name", J::Str(&self.first_name)),
            ("last_name", J::Str(&self.last_name)),
        ]);
        vec![
            ("user_id", J::Str(&self.user_id)),
            ("name", name),
            ("address", self.address.dump()),
            ("email", J::Str(&self.email)),
            (
                "payment_methods",
                self.payment_methods.dump_with(Dump::dump),
            ),
            ("orders", J::Strs(&self.orders)),
        ]
    }
}

/// An item of an order (`OrderItem`).
#[derive(Debug, Clone)]
pub struct OrderItem {
    /// `name`.
    pub name: String,
    /// `product_id`.
    pub product_id: String,
    /// `item_id`.
    pub item_id: String,
    /// `price`.
    pub price: f64,
    /// `options`.
    pub options: Options,
}

impl Dump for OrderItem {
    fn fields(&self) -> Vec<(&str, J<'_>)> {
        vec![
            ("name", J::Str(&self.name)),
            ("product_id", J::Str(&self.product_id)),
            ("item_id", J::Str(&self.item_id)),
            ("price", J::Num(Number::Float(self.price))),
            ("options", dump_options(&self.options)),
        ]
    }
}

/// A fulfillment (`OrderFullfilment`).
#[derive(Debug, Clone)]
pub struct Fulfillment {
    /// `tracking_id`.
    pub tracking_id: Vec<String>,
    /// `item_ids`.
    pub item_ids: Vec<String>,
}

/// `OrderPayment.transaction_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transaction {
    /// `"payment"`.
    Payment,
    /// `"refund"`.
    Refund,
}

impl Transaction {
    fn as_str(self) -> &'static str {
        match self {
            Transaction::Payment => "payment",
            Transaction::Refund => "refund",
        }
    }
}

/// A payment or refund of an order (`OrderPayment`).
#[derive(Debug, Clone)]
pub struct Payment {
    /// `transaction_type`.
    pub transaction_type: Transaction,
    /// `amount`.
    pub amount: f64,
    /// `payment_method_id`.
    pub payment_method_id: String,
}

impl Dump for Payment {
    fn fields(&self) -> Vec<(&str, J<'_>)> {
        vec![
            ("transaction_type", J::Str(self.transaction_type.as_str())),
            ("amount", J::Num(Number::Float(self.amount))),
            ("payment_method_id", J::Str(&self.payment_method_id)),
        ]
    }
}

/// `Order.status` (the `OrderStatus` literal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// `processed`.
    Processed,
    /// `pending`.
    Pending,
    /// `pending (item modified)`.
    PendingItemModified,
    /// `delivered`.
    Delivered,
    /// `cancelled`.
    Cancelled,
    /// `exchange requested`.
    ExchangeRequested,
    /// `return requested`.
    ReturnRequested,
}

const STATUSES: [(Status, &str); 7] = [
    (Status::Processed, "processed"),
    (Status::Pending, "pending"),
    (Status::PendingItemModified, "pending (item modified)"),
    (Status::Delivered, "delivered"),
    (Status::Cancelled, "cancelled"),
    (Status::ExchangeRequested, "exchange requested"),
    (Status::ReturnRequested, "return requested"),
];

impl Status {
    /// The literal.
    pub fn as_str(self) -> &'static str {
        STATUSES
            .iter()
            .find(|(s, _)| *s == self)
            .map_or("", |(_, t)| t)
    }

    fn parse(text: &str) -> Option<Status> {
        STATUSES.iter().find(|(_, t)| *t == text).map(|(s, _)| *s)
    }
}

/// An order (`Order`): the seven optional fields last, `None` until set.
#[derive(Debug, Clone)]
pub struct Order {
    /// `order_id`.
    pub order_id: String,
    /// `user_id`.
    pub user_id: String,
    /// `address`.
    pub address: Address,
    /// `items`.
    pub items: Vec<OrderItem>,
    /// `status`.
    pub status: Status,
    /// `fulfillments`.
    pub fulfillments: Vec<Fulfillment>,
    /// `payment_history`.
    pub payment_history: Vec<Payment>,
    /// `cancel_reason`.
    pub cancel_reason: Option<String>,
    /// `exchange_items`.
    pub exchange_items: Option<Vec<String>>,
    /// `exchange_new_items`.
    pub exchange_new_items: Option<Vec<String>>,
    /// `exchange_payment_method_id`.
    pub exchange_payment_method_id: Option<String>,
    /// `exchange_price_difference`.
    pub exchange_price_difference: Option<Number>,
    /// `return_items`.
    pub return_items: Option<Vec<String>>,
    /// `return_payment_method_id`.
    pub return_payment_method_id: Option<String>,
}

fn opt_str(value: &Option<String>) -> J<'_> {
    value.as_deref().map_or(J::Null, J::Str)
}

fn opt_strs(value: &Option<Vec<String>>) -> J<'_> {
    value.as_deref().map_or(J::Null, J::Strs)
}

impl Dump for Order {
    fn fields(&self) -> Vec<(&str, J<'_>)> {
        let fulfillments = self
            .fulfillments
            .iter()
            .map(|f| {
                J::Map(vec![
                    ("tracking_id", J::Strs(&f.tracking_id)),
                    ("item_ids", J::Strs(&f.item_ids)),
                ])
            })
            .collect();
        vec![
            ("order_id", J::Str(&self.order_id)),
            ("user_id", J::Str(&self.user_id)),
            ("address", self.address.dump()),
            (
                "items",
                J::List(self.items.iter().map(Dump::dump).collect()),
            ),
            ("status", J::Str(self.status.as_str())),
            ("fulfillments", J::List(fulfillments)),
            (
                "payment_history",
                J::List(self.payment_history.iter().map(Dump::dump).collect()),
            ),
            ("cancel_reason", opt_str(&self.cancel_reason)),
            ("exchange_items", opt_strs(&self.exchange_items)),
            ("exchange_new_items", opt_strs(&self.exchange_new_items)),
            (
                "exchange_payment_method_id",
                opt_str(&self.exchange_payment_method_id),
            ),
            (
                "exchange_price_difference",
                self.exchange_price_difference.map_or(J::Null, J::Num),
            ),
            ("return_items", opt_strs(&self.return_items)),
            (
                "return_payment_method_id",
                opt_str(&self.return_payment_method_id),
            ),
        ]
    }
}

/// The database (`RetailDB`).
#[derive(Debug, Clone)]
pub struct Db {
    /// `products`, by product id.
    pub products: Table<Product>,
    /// `users`, by user id.
    pub users: Table<User>,
    /// `orders`, by order id.
    pub orders: Table<Order>,
}

impl Dump for Db {
    fn fields(&self) -> Vec<(&str, J<'_>)> {
        vec![
            ("products", self.products.dump_with(Dump::dump)),
            ("users", self.users.dump_with(Dump::dump)),
            ("orders", self.orders.dump_with(Dump::dump)),
        ]
    }
}

impl Db {
    /// Reads `db.json` (the official file) as `RetailDB.load` validates it.
    pub fn from_json(text: &str) -> Result<Db> {
        let root = json_loads_str(text).map_err(|e| anyhow!("db.json is not JSON: {e}"))?;
        let r = Reader::new(&root, "db.json")?;
        Ok(Db {
            products: r.table("products", read_product)?,
            users: r.table("users", read_user)?,
            orders: r.table("orders", read_order)?,
        })
    }

    /// `json.dumps(db.model_dump(), sort_keys=True, default=str)`: the text
    /// whose SHA-256 is the database hash.
    pub fn canonical_json(&self) -> String {
        let mut out = String::with_capacity(2 << 20);
        // The tables in key order: orders, products, users.
        out.push_str("{\"orders\": ");
        self.orders.write_canonical(&mut out);
        out.push_str(", \"products\": ");
        self.products.write_canonical(&mut out);
        out.push_str(", \"users\": ");
        self.users.write_canonical(&mut out);
        out.push('}');
        out
    }

    /// A number that changes whenever the database may have changed.
    pub fn generation(&self) -> u64 {
        self.products.generation() + self.users.generation() + self.orders.generation()
    }

    /// `ToolKitBase.get_db_hash()`: the SHA-256 (hex) of [`Db::canonical_json`].
    pub fn hash(&self) -> String {
        sha256_hex(self.canonical_json().as_bytes())
    }
}

/// A dict of `db.json` being read, with its path for messages.
struct Reader<'a> {
    entries: &'a [(PyValue, PyValue)],
    path: String,
}

impl<'a> Reader<'a> {
    fn new(value: &'a PyValue, path: &str) -> Result<Reader<'a>> {
        match value {
            PyValue::Dict(entries) => Ok(Reader {
                entries,
                path: path.to_string(),
            }),
            other => bail!("{path}: expected an object, found {}", other.type_name()),
        }
    }

    fn field(&self, name: &str) -> Result<&'a PyValue> {
        self.entries
            .iter()
            .find(|(k, _)| matches!(k, PyValue::Str(s) if s.0.iter().copied().eq(name.chars().map(u32::from))))
            .map(|(_, v)| v)
            .with_context(|| format!("{}: missing field `{name}`", self.path))
    }

    fn sub(&self, name: &str) -> Result<Reader<'a>> {
        Reader::new(self.field(name)?, &format!("{}.{name}", self.path))
    }

    fn string(&self, name: &str) -> Result<String> {
        as_string(self.field(name)?, &format!("{}.{name}", self.path))
    }

    fn text(&self, name: &str) -> Result<PyStr> {
        match self.field(name)? {
            PyValue::Str(s) => Ok(s.clone()),
            other => bail!(
                "{}.{name}: expected a string, found {}",
                self.path,
                other.type_name()
            ),
        }
    }

    fn float(&self, name: &str) -> Result<f64> {
        match self.field(name)? {
            PyValue::Float(x) => Ok(*x),
            PyValue::Int(text) => text
                .parse::<f64>()
                .with_context(|| format!("{}.{name}: bad number", self.path)),
            other => bail!(
                "{}.{name}: expected a number, found {}",
                self.path,
                other.type_name()
            ),
        }
    }

    fn strings(&self, name: &str) -> Result<Vec<String>> {
        let path = format!("{}.{name}", self.path);
        match self.field(name)? {
            PyValue::List(items) => items.iter().map(|v| as_string(v, &path)).collect(),
            other => bail!("{path}: expected a list, found {}", other.type_name()),
        }
    }

    fn optional<T>(
        &self,
        name: &str,
        read: impl Fn(&Self, &str) -> Result<T>,
    ) -> Result<Option<T>> {
        match self.entries.iter().any(|(k, v)| {
            matches!(k, PyValue::Str(s) if *s == PyStr::new(name)) && !matches!(v, PyValue::None)
        }) {
            true => read(self, name).map(Some),
            false => Ok(None),
        }
    }

    fn table<T>(&self, name: &str, read: impl Fn(&Reader<'a>) -> Result<T>) -> Result<Table<T>> {
        let dict = self.sub(name)?;
        let mut table = Table::default();
        for (key, value) in dict.entries {
            let key = as_string(key, &dict.path)?;
            let item = Reader::new(value, &format!("{}[{key:?}]", dict.path))?;
            table.insert(key, read(&item)?);
        }
        Ok(table)
    }

    fn options(&self, name: &str) -> Result<Options> {
        let dict = self.sub(name)?;
        dict.entries
            .iter()
            .map(|(k, v)| Ok((as_string(k, &dict.path)?, as_string(v, &dict.path)?)))
            .collect()
    }

    fn list(&self, name: &str) -> Result<Vec<Reader<'a>>> {
        let path = format!("{}.{name}", self.path);
        match self.field(name)? {
            PyValue::List(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| Reader::new(v, &format!("{path}[{i}]")))
                .collect(),
            other => bail!("{path}: expected a list, found {}", other.type_name()),
        }
    }
}

fn as_string(value: &PyValue, path: &str) -> Result<String> {
    match value {
        PyValue::Str(s) if s.first_surrogate().is_none() => Ok(s.to_string_lossy()),
        other => bail!("{path}: expected a string, found {}", other.type_name()),
    }
}

fn read_product(r: &Reader<'_>) -> Result<Product> {
    Ok(Product {
        name: r.string("name")?,
        product_id: r.string("product_id")?,
        variants: r.table("variants", |v| {
            Ok(Variant {
                item_id: v.string("item_id")?,
                options: v.options("options")?,
                available: match v.field("available")? {
                    PyValue::Bool(b) => *b,
                    _ => bail!("{}.available: expected a boolean", v.path),
                },
                price: v.float("price")?,
            })
        })?,
    })
}

fn read_address(r: &Reader<'_>) -> Result<Address> {
    let mut fields: [PyStr; 6] = Default::default();
    for (slot, name) in fields.iter_mut().zip(ADDRESS_FIELDS) {
        *slot = r.text(name)?;
    }
    Ok(Address { fields })
}

fn read_payment_method(r: &Reader<'_>) -> Result<PaymentMethod> {
    let id = r.string("id")?;
    Ok(match r.string("source")?.as_str() {
        "credit_card" => PaymentMethod::CreditCard {
            id,
            brand: r.string("brand")?,
            last_four: r.string("last_four")?,
        },
        "paypal" => PaymentMethod::Paypal { id },
        "gift_card" => PaymentMethod::GiftCard {
            id,
            balance: r.float("balance")?,
        },
        other => bail!("{}.source: unknown payment method `{other}`", r.path),
    })
}

fn read_user(r: &Reader<'_>) -> Result<User> {
    let name = r.sub("name")?;
    Ok(User {
        user_id: r.string("user_id")?,
        first_name: name.string("first_name")?,
        last_name: name.string("last_name")?,
        address: read_address(&r.sub("address")?)?,
        email: r.string("email")?,
        payment_methods: r.table("payment_methods", read_payment_method)?,
        orders: r.strings("orders")?,
    })
}

fn read_order(r: &Reader<'_>) -> Result<Order> {
    let status = r.string("status")?;
    let items = r
        .list("items")?
        .iter()
        .map(read_item)
        .collect::<Result<_>>()?;
    let fulfillments = r
        .list("fulfillments")?
        .iter()
        .map(|f| {
            Ok(Fulfillment {
                tracking_id: f.strings("tracking_id")?,
                item_ids: f.strings("item_ids")?,
            })
        })
        .collect::<Result<_>>()?;
    let payment_history = r
        .list("payment_history")?
        .iter()
        .map(read_payment)
        .collect::<Result<_>>()?;
    Ok(Order {
        order_id: r.string("order_id")?,
        user_id: r.string("user_id")?,
        address: read_address(&r.sub("address")?)?,
        items,
        status: Status::parse(&status)
            .with_context(|| format!("{}.status: unknown status `{status}`", r.path))?,
        fulfillments,
        payment_history,
        cancel_reason: r.optional("cancel_reason", Reader::string)?,
        exchange_items: r.optional("exchange_items", Reader::strings)?,
        exchange_new_items: r.optional("exchange_new_items", Reader::strings)?,
        exchange_payment_method_id: r.optional("exchange_payment_method_id", Reader::string)?,
        exchange_price_difference: r
            .optional("exchange_price_difference", Reader::float)?
            .map(Number::Float),
        return_items: r.optional("return_items", Reader::strings)?,
        return_payment_method_id: r.optional("return_payment_method_id", Reader::string)?,
    })
}

fn read_item(r: &Reader<'_>) -> Result<OrderItem> {
    Ok(OrderItem {
        name: r.string("name")?,
        product_id: r.string("product_id")?,
        item_id: r.string("item_id")?,
        price: r.float("price")?,
        options: r.options("options")?,
    })
}

fn read_payment(r: &Reader<'_>) -> Result<Payment> {
    let kind = r.string("transaction_type")?;
    Ok(Payment {
        transaction_type: match kind.as_str() {
            "payment" => Transaction::Payment,
            "refund" => Transaction::Refund,
            _ => bail!("{}.transaction_type: unknown `{kind}`", r.path),
        },
        amount: r.float("amount")?,
        payment_method_id: r.string("payment_method_id")?,
    })
}
