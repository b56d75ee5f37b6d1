//! The 16 retail tools (`RetailTools` of `tools.py`): their signatures and
//! their behaviour on the database, on arguments of any JSON type, each
//! ending in the string the agent receives or the `str()` of the exception
//! the official code raises.

use super::calculate::calculate;
use super::db::{
    ADDRESS_FIELDS, Address, Db, Order, Payment, PaymentMethod, Status, Transaction, User, Variant,
};
use super::json::{Number, dumps};
use super::py::{
    self, PyResult, dict_key, first_missing, iterate, lower, lower_str, round2, sorted_strings,
    to_str,
};
use crate::benchmarks::bfcl::multi_turn::api::{Param, Signature};
use crate::benchmarks::python::value::py_eq;
use crate::benchmarks::python::{PyStr, PyValue, py_repr};

/// The version in pydantic's error links (`pydantic 2.12.4`, pinned by the
/// official `uv.lock`).
const PYDANTIC_DOCS_VERSION: &str = "2.12";

const fn sig(name: &'static str, params: &'static [Param]) -> Signature {
    Signature { name, params }
}

const ADDRESS_PARAMS: [Param; 6] = [
    Param::required("address1"),
    Param::required("address2"),
    Param::required("city"),
    Param::required("state"),
    Param::required("country"),
    Param::required("zip"),
];

const fn with_id(id: &'static str) -> [Param; 7] {
    let a = ADDRESS_PARAMS;
    [Param::required(id), a[0], a[1], a[2], a[3], a[4], a[5]]
}

const ORDER_ADDRESS: [Param; 7] = with_id("order_id");
const USER_ADDRESS: [Param; 7] = with_id("user_id");
const ITEM_CHANGE: [Param; 4] = [
    Param::required("order_id"),
    Param::required("item_ids"),
    Param::required("new_item_ids"),
    Param::required("payment_method_id"),
];

/// Every tool with its parameters, in the order the official toolkit
/// lists them (alphabetical).
pub const SIGNATURES: [Signature; 16] = [
    sig("calculate", &[Param::required("expression")]),
    sig(
        "cancel_pending_order",
        &[Param::required("order_id"), Param::required("reason")],
    ),
    sig("exchange_delivered_order_items", &ITEM_CHANGE),
    sig(
        "find_user_id_by_name_zip",
        &[
            Param::required("first_name"),
            Param::required("last_name"),
            Param::required("zip"),
        ],
    ),
    sig("find_user_id_by_email", &[Param::required("email")]),
    sig("get_order_details", &[Param::required("order_id")]),
    sig("get_product_details", &[Param::required("product_id")]),
    sig("get_item_details", &[Param::required("item_id")]),
    sig("get_user_details", &[Param::required("user_id")]),
    sig("list_all_product_types", &[]),
    sig("modify_pending_order_address", &ORDER_ADDRESS),
    sig("modify_pending_order_items", &ITEM_CHANGE),
    sig(
        "modify_pending_order_payment",
        &[
            Param::required("order_id"),
            Param::required("payment_method_id"),
        ],
    ),
    sig("modify_user_address", &USER_ADDRESS),
    sig(
        "return_delivered_order_items",
        &[
            Param::required("order_id"),
            Param::required("item_ids"),
            Param::required("payment_method_id"),
        ],
    ),
    sig("transfer_to_human_agents", &[Param::required("summary")]),
];

/// The names of the tools that may change the database (`ToolType.WRITE`).
pub const WRITE_TOOLS: [&str; 7] = [
    "cancel_pending_order",
    "exchange_delivered_order_items",
    "modify_pending_order_address",
    "modify_pending_order_items",
    "modify_pending_order_payment",
    "modify_user_address",
    "return_delivered_order_items",
];

/// Runs `name` on arguments bound to its parameters (one per parameter,
/// in [`SIGNATURES`] order): the output string, or the exception's text.
pub fn run(db: &mut Db, name: &str, args: &[PyValue]) -> PyResult<String> {
    let a = |i: usize| &args[i];
    match name {
        "calculate" => calculate(a(0)),
        "cancel_pending_order" => cancel_pending_order(db, a(0), a(1)),
        "exchange_delivered_order_items" => exchange(db, a(0), a(1), a(2), a(3)),
        "find_user_id_by_name_zip" => find_user_id_by_name_zip(db, a(0), a(1), a(2)),
        "find_user_id_by_email" => find_user_id_by_email(db, a(0)),
        "get_order_details" => Ok(dumps(order(db, a(0))?)),
        "get_product_details" => {
            let key = dict_key(a(0))?;
            let product = key.and_then(|k| db.products.get(&k));
            Ok(dumps(product.ok_or("Product not found")?))
        }
        "get_item_details" => Ok(dumps(item(db, a(0))?)),
        "get_user_details" => Ok(dumps(user(db, a(0))?)),
        "list_all_product_types" => Ok(list_all_product_types(db)),
        "modify_pending_order_address" => modify_order_address(db, a(0), &args[1..]),
        "modify_pending_order_items" => modify_items(db, a(0), a(1), a(2), a(3)),
        "modify_pending_order_payment" => modify_payment(db, a(0), a(1)),
        "modify_user_address" => modify_user_address(db, a(0), &args[1..]),
        "return_delivered_order_items" => return_items(db, a(0), a(1), a(2)),
        "transfer_to_human_agents" => Ok("Transfer successful".into()),
        other => Err(format!("Tool '{other}' not found.")),
    }
}

fn order_key(db: &Db, order_id: &PyValue) -> PyResult<String> {
    dict_key(order_id)?
        .filter(|k| db.orders.contains(k))
        .ok_or_else(|| "Order not found".to_string())
}

fn order<'a>(db: &'a Db, order_id: &PyValue) -> PyResult<&'a Order> {
    let key = order_key(db, order_id)?;
    Ok(db.orders.get(&key).expect("checked"))
}

fn user<'a>(db: &'a Db, user_id: &PyValue) -> PyResult<&'a User> {
    dict_key(user_id)?
        .and_then(|k| db.users.get(&k))
        .ok_or_else(|| "User not found".to_string())
}

fn item<'a>(db: &'a Db, item_id: &PyValue) -> PyResult<&'a Variant> {
    for product in db.products.values() {
        // `item_id in product.variants` hashes it once per product.
        if let Some(variant) = dict_key(item_id)?.and_then(|k| product.variants.get(&k)) {
            return Ok(variant);
        }
    }
    Err("Item not found".into())
}

/// `_get_variant(product_id, variant_id)`.
fn variant<'a>(db: &'a Db, product_id: &str, variant_id: &PyValue) -> PyResult<&'a Variant> {
    let product = db.products.get(product_id).ok_or("Product not found")?;
    dict_key(variant_id)?
        .and_then(|k| product.variants.get(&k))
        .ok_or_else(|| "Variant not found".to_string())
}

/// `_get_payment_method(user_id, payment_method_id)`: the key found.
fn payment_method_key(db: &Db, user_id: &str, method_id: &PyValue) -> PyResult<String> {
    let user = db.users.get(user_id).ok_or("User not found")?;
    dict_key(method_id)?
        .filter(|k| user.payment_methods.contains(k))
        .ok_or_else(|| "Payment method not found".to_string())
}

fn method<'a>(db: &'a Db, user_id: &str, key: &str) -> &'a PaymentMethod {
    let user = db.users.get(user_id).expect("checked");
    user.payment_methods.get(key).expect("checked")
}

fn method_mut<'a>(db: &'a mut Db, user_id: &str, key: &str) -> &'a mut PaymentMethod {
    let user = db.users.get_mut(user_id).expect("checked");
    user.payment_methods.get_mut(key).expect("checked")
}

fn gift_card_balance(method: &PaymentMethod) -> Option<f64> {
    match method {
        PaymentMethod::GiftCard { balance, .. } => Some(*balance),
        _ => None,
    }
}

/// `balance += amount` then `round(balance, 2)` on a gift card; nothing on
/// another method.
fn add_to_gift_card(method: &mut PaymentMethod, amount: f64) {
    if let PaymentMethod::GiftCard { balance, .. } = method {
        *balance = round2(*balance + amount);
    }
}

fn cancel_pending_order(db: &mut Db, order_id: &PyValue, reason: &PyValue) -> PyResult<String> {
    let key = order_key(db, order_id)?;
    let order = db.orders.get(&key).expect("checked");
    if order.status != Status::Pending {
        return Err("Non-pending order cannot be cancelled".into());
    }
    let reason = match dict_key(reason)? {
        Some(r) if r == "no longer needed" || r == "ordered by mistake" => r,
        _ => return Err("Invalid reason".into()),
    };
    let user_id = order.user_id.clone();
    let payments = order.payment_history.clone();
    let mut refunds = Vec::new();
    for payment in payments {
        refunds.push(Payment {
            transaction_type: Transaction::Refund,
            ..payment.clone()
        });
        let owner = db
            .users
            .get(&user_id)
            .ok_or("User not found")?
            .user_id
            .clone();
        let method_key = payment_method_key(
            db,
            &owner,
            &PyValue::Str(PyStr::new(&payment.payment_method_id)),
        )?;
        add_to_gift_card(method_mut(db, &owner, &method_key), payment.amount);
    }
    let order = db.orders.get_mut(&key).expect("checked");
    order.status = Status::Cancelled;
    order.cancel_reason = Some(reason);
    order.payment_history.extend(refunds);
    Ok(dumps(&*order))
}

/// The price difference of `item_ids` -> `new_item_ids` (the loop both item
/// tools share), and the last variant the loop looked up.
struct Change {
    /// The order's key and its user's id.
    key: String,
    user_id: String,
    diff: Number,
    last_variant: Option<Variant>,
    olds: Vec<PyValue>,
    news: Vec<PyValue>,
}

/// What differs between the two item tools: the status they require and
/// their messages.
struct ItemRules {
    status: Status,
    status_error: &'static str,
    /// The message for an item not in the order, around its `str()`.
    missing: (&'static str, &'static str),
    count_error: &'static str,
    /// `modify_pending_order_items` refuses a new item equal to the old.
    refuse_same: bool,
}

/// The checks both item tools make, in the official order, and the price
/// difference of `item_ids` -> `new_item_ids` with the last variant the
/// loop looked up.
fn item_change(
    db: &Db,
    order_id: &PyValue,
    item_ids: &PyValue,
    new_item_ids: &PyValue,
    rules: &ItemRules,
) -> PyResult<Change> {
    let key = order_key(db, order_id)?;
    let order = db.orders.get(&key).expect("checked");
    if order.status != rules.status {
        return Err(rules.status_error.into());
    }
    let all: Vec<String> = order.items.iter().map(|i| i.item_id.clone()).collect();
    if let Some(missing) = first_missing(item_ids, &all)? {
        let (before, after) = rules.missing;
        return Err(format!("{before}{}{after}", to_str(&missing)));
    }
    if py::len(item_ids)? != py::len(new_item_ids)? {
        return Err(rules.count_error.into());
    }
    let olds = iterate(item_ids)?;
    let news = iterate(new_item_ids)?;
    let mut diff = Number::Int(0);
    let mut last_variant = None;
    for (old, new) in olds.iter().zip(&news) {
        if rules.refuse_same && py_eq(old, new) {
            return Err("The new item id should be different from the old item id".into());
        }
        let found = match old {
            PyValue::Str(s) => order.items.iter().find(|i| PyStr::new(&i.item_id) == *s),
            _ => None,
        };
        let item = found.ok_or_else(|| format!("Item {} not found", to_str(old)))?;
        let variant = variant(db, &item.product_id, new)?;
        if !variant.available {
            return Err(format!("New item {} not found or available", to_str(new)));
        }
        diff = Number::Float(diff.as_f64() + (variant.price - item.price));
        last_variant = Some(variant.clone());
    }
    Ok(Change {
        key,
        user_id: order.user_id.clone(),
        diff,
        last_variant,
        olds,
        news,
    })
}

fn exchange(
    db: &mut Db,
    order_id: &PyValue,
    item_ids: &PyValue,
    new_item_ids: &PyValue,
    method_id: &PyValue,
) -> PyResult<String> {
    let rules = ItemRules {
        status: Status::Delivered,
        status_error: "Non-delivered order cannot be exchanged",
        missing: ("Number of ", " not found."),
        count_error: "The number of items to be exchanged should match.",
        refuse_same: false,
    };
    let change = item_change(db, order_id, item_ids, new_item_ids, &rules)?;
    let diff = match change.diff {
        Number::Float(x) => Number::Float(round2(x)),
        int => int,
    };
    let (key, user_id) = (&change.key, &change.user_id);
    let method_key = payment_method_key(db, user_id, method_id)?;
    let balance = gift_card_balance(method(db, user_id, &method_key));
    if balance.is_some_and(|b| b < diff.as_f64()) {
        return Err("Insufficient gift card balance to pay for the price difference".into());
    }
    let order = db.orders.get_mut(key).expect("checked");
    order.status = Status::ExchangeRequested;
    order.exchange_items = Some(sorted_strings(&change.olds)?);
    order.exchange_new_items = Some(sorted_strings(&change.news)?);
    order.exchange_payment_method_id = Some(method_key);
    order.exchange_price_difference = Some(diff);
    Ok(dumps(&*order))
}

fn modify_items(
    db: &mut Db,
    order_id: &PyValue,
    item_ids: &PyValue,
    new_item_ids: &PyValue,
    method_id: &PyValue,
) -> PyResult<String> {
    let rules = ItemRules {
        status: Status::Pending,
        status_error: "Non-pending order cannot be modified",
        missing: ("", " not found"),
        count_error: "The number of items to be exchanged should match",
        refuse_same: true,
    };
    let change = item_change(db, order_id, item_ids, new_item_ids, &rules)?;
    let diff = change.diff.as_f64();
    let user_id = &change.user_id;
    let method_key = payment_method_key(db, user_id, method_id)?;
    if gift_card_balance(method(db, user_id, &method_key)).is_some_and(|b| b < diff) {
        return Err("Insufficient gift card balance to pay for the new item".into());
    }
    add_to_gift_card(method_mut(db, user_id, &method_key), -diff);
    let order = db.orders.get_mut(&change.key).expect("checked");
    order.payment_history.push(Payment {
        transaction_type: if diff > 0.0 {
            Transaction::Payment
        } else {
            Transaction::Refund
        },
        amount: diff.abs(),
        payment_method_id: method_key,
    });
    // Every modified item takes the price and options of the last variant
    // looked up above: the official loop reuses its variable `variant`.
    for (old, new) in change.olds.iter().zip(&change.news) {
        let PyValue::Str(old) = old else { continue };
        let PyValue::Str(new) = new else { continue };
        let variant = change.last_variant.as_ref().expect("a pair was checked");
        if let Some(item) = order
            .items
            .iter_mut()
            .find(|i| PyStr::new(&i.item_id) == *old)
        {
            item.item_id = new.to_string_lossy();
            item.price = variant.price;
            item.options = variant.options.clone();
        }
    }
    order.status = Status::PendingItemModified;
    Ok(dumps(&*order))
}

fn modify_payment(db: &mut Db, order_id: &PyValue, method_id: &PyValue) -> PyResult<String> {
    let key = order_key(db, order_id)?;
    let order = db.orders.get(&key).expect("checked");
    if !order.status.as_str().contains("pending") {
        return Err("Non-pending order cannot be modified".into());
    }
    let user_id = order.user_id.clone();
    let method_key = payment_method_key(db, &user_id, method_id)?;
    let [first] = order.payment_history.as_slice() else {
        return Err("There should be exactly one payment for a pending order".into());
    };
    if first.transaction_type != Transaction::Payment {
        return Err("There should be exactly one payment for a pending order".into());
    }
    if first.payment_method_id == method_key {
        return Err("The new payment method should be different from the current one".into());
    }
    let (amount, old_key) = (first.amount, first.payment_method_id.clone());
    if gift_card_balance(method(db, &user_id, &method_key)).is_some_and(|b| b < amount) {
        return Err("Insufficient gift card balance to pay for the order".into());
    }
    let order = db.orders.get_mut(&key).expect("checked");
    order.payment_history.push(Payment {
        transaction_type: Transaction::Payment,
        amount,
        payment_method_id: method_key.clone(),
    });
    order.payment_history.push(Payment {
        transaction_type: Transaction::Refund,
        amount,
        payment_method_id: old_key.clone(),
    });
    add_to_gift_card(method_mut(db, &user_id, &method_key), -amount);
    let old = payment_method_key(db, &user_id, &PyValue::Str(PyStr::new(&old_key)))?;
    add_to_gift_card(method_mut(db, &user_id, &old), amount);
    Ok(dumps(db.orders.get(&key).expect("checked")))
}

/// `UserAddress(address1=..., ...)`: pydantic's validation, each field a
/// `str`, failures reported in field order.
fn address(args: &[PyValue]) -> PyResult<Address> {
    // Arguments come in parameter order (…, state, country, zip); the
    // model's fields are (…, country, state, zip).
    let by_field = [&args[0], &args[1], &args[2], &args[4], &args[3], &args[5]];
    let mut errors = Vec::new();
    let mut fields: [PyStr; 6] = Default::default();
    for ((slot, name), value) in fields.iter_mut().zip(ADDRESS_FIELDS).zip(by_field) {
        match value {
            PyValue::Str(s) => *slot = s.clone(),
            other => errors.push(string_type_error(name, other)),
        }
    }
    if errors.is_empty() {
        return Ok(Address { fields });
    }
    let plural = if errors.len() == 1 { "" } else { "s" };
    Err(format!(
        "{} validation error{plural} for UserAddress\n{}",
        errors.len(),
        errors.join("\n")
    ))
}

/// One `string_type` error of pydantic-core's `ValidationError.__str__`,
/// `input_value` being the value's `repr`, cut to its first 25 and last 24
/// bytes when longer than 50.
fn string_type_error(field: &str, value: &PyValue) -> String {
    let repr = PyStr(py_repr(value)).to_string_lossy();
    let shown = if repr.len() > 50 {
        let mut head = 25;
        while !repr.is_char_boundary(head) {
            head -= 1;
        }
        let mut tail = repr.len() - 24;
        while !repr.is_char_boundary(tail) {
            tail += 1;
        }
        format!("{}...{}", &repr[..head], &repr[tail..])
    } else {
        repr
    };
    format!(
        "{field}\n  Input should be a valid string [type=string_type, input_value={shown}, input_type={}]\n    For further information visit https://errors.pydantic.dev/{PYDANTIC_DOCS_VERSION}/v/string_type",
        value.type_name()
    )
}

fn modify_order_address(db: &mut Db, order_id: &PyValue, fields: &[PyValue]) -> PyResult<String> {
    let key = order_key(db, order_id)?;
    if !db
        .orders
        .get(&key)
        .expect("checked")
        .status
        .as_str()
        .contains("pending")
    {
        return Err("Non-pending order cannot be modified".into());
    }
    let address = address(fields)?;
    let order = db.orders.get_mut(&key).expect("checked");
    order.address = address;
    Ok(dumps(&*order))
}

fn modify_user_address(db: &mut Db, user_id: &PyValue, fields: &[PyValue]) -> PyResult<String> {
    let key = dict_key(user_id)?
        .filter(|k| db.users.contains(k))
        .ok_or("User not found")?;
    let address = address(fields)?;
    let user = db.users.get_mut(&key).expect("checked");
    user.address = address;
    Ok(dumps(&*user))
}

fn return_items(
    db: &mut Db,
    order_id: &PyValue,
    item_ids: &PyValue,
    method_id: &PyValue,
) -> PyResult<String> {
    let key = order_key(db, order_id)?;
    let order = db.orders.get(&key).expect("checked");
    if order.status != Status::Delivered {
        return Err("Non-delivered order cannot be returned".into());
    }
    let owner = db
        .users
        .get(&order.user_id)
        .ok_or("User not found")?
        .user_id
        .clone();
    let method_key = payment_method_key(db, &owner, method_id)?;
    let is_gift_card = gift_card_balance(method(db, &owner, &method_key)).is_some();
    let order = db.orders.get(&key).expect("checked");
    if !is_gift_card {
        let first = order
            .payment_history
            .first()
            .ok_or("list index out of range")?;
        if method_key != first.payment_method_id {
            return Err("Payment method should be the original payment method".into());
        }
    }
    let all: Vec<String> = order.items.iter().map(|i| i.item_id.clone()).collect();
    if first_missing(item_ids, &all)?.is_some() {
        return Err("Some item not found".into());
    }
    let returned = sorted_strings(&iterate(item_ids)?)?;
    let order = db.orders.get_mut(&key).expect("checked");
    order.status = Status::ReturnRequested;
    order.return_items = Some(returned);
    order.return_payment_method_id = Some(method_key);
    Ok(dumps(&*order))
}

fn find_user_id_by_email(db: &Db, email: &PyValue) -> PyResult<String> {
    let mut wanted = None;
    for (user_id, user) in db.users.iter() {
        let wanted = match &wanted {
            Some(w) => w,
            None => wanted.insert(lower(email)?),
        };
        if lower_str(&PyStr::new(&user.email)) == *wanted {
            return Ok(user_id.to_string());
        }
    }
    Err("User not found".into())
}

fn find_user_id_by_name_zip(
    db: &Db,
    first: &PyValue,
    last: &PyValue,
    zip: &PyValue,
) -> PyResult<String> {
    let (mut first_lower, mut last_lower) = (None, None);
    for (user_id, user) in db.users.iter() {
        let f = match &first_lower {
            Some(f) => f,
            None => first_lower.insert(lower(first)?),
        };
        if lower_str(&PyStr::new(&user.first_name)) != *f {
            continue;
        }
        let l = match &last_lower {
            Some(l) => l,
            None => last_lower.insert(lower(last)?),
        };
        if lower_str(&PyStr::new(&user.last_name)) != *l {
            continue;
        }
        if matches!(zip, PyValue::Str(z) if z == user.address.zip()) {
            return Ok(user_id.to_string());
        }
    }
    Err("User not found".into())
}

/// `json.dumps({name: product_id}, sort_keys=True)`.
fn list_all_product_types(db: &Db) -> String {
    let mut names: Vec<(&str, &str)> = Vec::new();
    for product in db.products.values() {
        match names.iter_mut().find(|(n, _)| *n == product.name) {
            Some(entry) => entry.1 = &product.product_id,
            None => names.push((&product.name, &product.product_id)),
        }
    }
    let map = super::json::J::Map(
        names
            .into_iter()
            .map(|(n, id)| (n, super::json::J::Str(id)))
            .collect(),
    );
    let mut out = String::new();
    super::json::write(&mut out, &map, true);
    out
}
