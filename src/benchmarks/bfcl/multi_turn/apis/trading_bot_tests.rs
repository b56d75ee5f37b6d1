// Every expected text below is what the official class prints under
// CPython 3.11.7 (TZ=UTC) for the same calls.

use super::super::py_ops::testing::run;
use super::*;

fn lit(text: &str) -> PyValue {
    literal_eval(text).unwrap()
}

fn bot(config: &str, long_context: bool) -> TradingBot {
    TradingBot::new(&lit(config), long_context)
}

fn logged_in(config: &str, long_context: bool) -> TradingBot {
    let mut b = bot(config, long_context);
    b.call("trading_login", vec![lit("'a'"), lit("'b'")])
        .unwrap();
    b
}

#[test]
fn deposits_and_withdrawals_draw_the_reference_timestamps() {
    let mut b = logged_in("{}", false);
    assert_eq!(
        run(&mut b, "fund_account", &["5000"]),
        r#"{"status": "Account funded successfully", "new_balance": 15000.0}"#
    );
    let history = run(&mut b, "get_transaction_history", &[]);
    assert_eq!(
        history,
        r#"{"transaction_history": [{"type": "deposit", "amount": 5000, "timestamp": "2024-09-02 05:40:15"}]}"#
    );
    b.market_status = lit("'Open'");
    assert_eq!(
        run(&mut b, "withdraw_funds", &["True"]),
        r#"{"status": "Withdrawal successful", "new_balance": 14999.0}"#
    );
    assert_eq!(
        run(&mut b, "withdraw_funds", &[&format!("1{}", "0".repeat(30))]),
        r#"{"error": "Insufficient funds for withdrawal."}"#
    );
    assert_eq!(
        run(&mut b, "place_order", &["'buy'", "'AAPL'", "100.0", "1000"]),
        r#"{"error": "Insufficient funds: required $100000.00 but only $14999.00 available."}"#
    );
}

#[test]
fn wrong_argument_types_raise_pythons_texts() {
    let mut b = logged_in("{}", false);
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "place_order",
            &["'Buy'", "'AAPL'", "'5'", "1"],
            "'<=' not supported between instances of 'str' and 'int'",
        ),
        (
            "place_order",
            &["5", "'AAPL'", "5", "1"],
            "'int' object has no attribute 'lower'",
        ),
        (
            "place_order",
            &["'Buy'", "'AAPL'", "1e-300", &"9".repeat(400)],
            "int too large to convert to float",
        ),
        (
            "place_order",
            &["'Sell'", "'AAPL'", &"9".repeat(400), "1"],
            "int too large to convert to float",
        ),
        ("get_stock_info", &["['AAPL']"], "unhashable type: 'list'"),
        (
            "get_stock_info",
            &["('AAPL', [1])"],
            "unhashable type: 'list'",
        ),
        ("get_symbol_by_name", &["{}"], "unhashable type: 'dict'"),
        ("get_available_stocks", &["[]"], "unhashable type: 'list'"),
        (
            "filter_stocks_by_price",
            &["5", "0", "1"],
            "'int' object is not iterable",
        ),
        (
            "filter_stocks_by_price",
            &["['AAPL', 'x']", "'0'", "1"],
            "'>=' not supported between instances of 'float' and 'str'",
        ),
        (
            "notify_price_change",
            &["['AAPL']", "'a'"],
            "'>=' not supported between instances of 'float' and 'str'",
        ),
    ];
    for (method, args, error) in cases {
        assert_eq!(
            run(&mut b, method, args),
            format!("Error during execution: {error}"),
            "{method}{args:?}"
        );
    }
    let inf = b.call(
        "place_order",
        vec![
            lit("'Buy'"),
            lit("'AAPL'"),
            lit("5"),
            PyValue::Float(f64::INFINITY),
        ],
    );
    assert_eq!(inf.unwrap_err(), "cannot convert float infinity to integer");
}

#[test]
fn dates_parse_as_strptime_parses_them() {
    let mut b = logged_in("{}", false);
    let cases = [
        (
            "'2024-13-01'",
            "Error during execution: time data '2024-13-01' does not match format '%Y-%m-%d'",
        ),
        (
            "'2024-02-30'",
            "Error during execution: day is out of range for month",
        ),
        (
            "'2024-01-011'",
            "Error during execution: unconverted data remains: 1",
        ),
        (
            "'0000-01-01'",
            "Error during execution: year 0 is out of range",
        ),
        (
            "5",
            "Error during execution: strptime() argument 1 must be str, not int",
        ),
        (
            "' 2024-01-01'",
            "Error during execution: time data ' 2024-01-01' does not match format '%Y-%m-%d'",
        ),
        ("'2024-1-1'", r#"{"transaction_history": []}"#),
        ("'2024-01- 1'", r#"{"transaction_history": []}"#),
        ("''", r#"{"transaction_history": []}"#),
    ];
    for (date, want) in cases {
        assert_eq!(
            run(&mut b, "get_transaction_history", &[date]),
            want,
            "{date}"
        );
    }
    let mut b = logged_in(
        "{'transaction_history': [{'timestamp': '2024-10-27 14:10:53'}]}",
        false,
    );
    let within = run(
        &mut b,
        "get_transaction_history",
        &["'2024-10-27'", "'2024-10-28'"],
    );
    assert!(within.contains("14:10:53"), "{within}");
    let after = run(&mut b, "get_transaction_history", &["'2024-10-28'"]);
    assert_eq!(after, r#"{"transaction_history": []}"#);
}

#[test]
fn symbols_iterate_as_python_iterates_them() {
    let mut b = logged_in("{}", false);
    // A string is iterated by characters, and an unknown symbol has price 0.
    assert_eq!(
        run(&mut b, "filter_stocks_by_price", &["'AAPL'", "0", "1"]),
        r#"{"filtered_stocks": ["A", "A", "P", "L"]}"#
    );
    assert_eq!(
        run(&mut b, "notify_price_change", &["['AAPL', 'TSLA']", "0.1"]),
        r#"{"notification": "Stocks AAPL, TSLA have significant price changes."}"#
    );
    assert_eq!(
        run(&mut b, "cancel_order", &["12446.0"]),
        r#"{"order_id": 12446.0, "status": "Cancelled"}"#
    );
    assert_eq!(
        run(&mut b, "cancel_order", &["12345"]),
        r#"{"error": "Can't cancel order 12345. Order is already completed."}"#
    );
}

#[test]
fn long_context_extends_the_results_and_digit_keys_become_ints() {
    let config =
        "{'orders': {'12345': {'symbol': 'AAPL', 'status': 'Completed'}, 'order_type': 'Buy'}}";
    let mut b = logged_in(config, true);
    let watch = run(&mut b, "get_watchlist", &[]);
    assert_eq!(watch.len(), 7006);
    assert!(
        watch.starts_with("['NVDA', 'JHGUN', 'LMAT', 'YNK"),
        "{watch}"
    );
    assert!(watch.ends_with("'YBTT', 'ZRFRE', Ellipsis]"), "{watch}");
    let order = run(&mut b, "get_order_details", &["12345"]);
    assert_eq!(order.len(), 7286);
    assert!(order.starts_with(
        r#"{"symbol": "AAPL", "status": "Completed", "metadata": {"company_overview": "\n    AAPL is one of the most"#
    ));
    assert_eq!(run(&mut b, "get_stock_info", &["'AAPL'"]).len(), 31704);
    assert_eq!(run(&mut b, "get_transaction_history", &[]).len(), 84370);
    assert_eq!(
        run(&mut b, "get_available_stocks", &["'Technology'"]).len(),
        7051
    );
    assert_eq!(
        run(&mut b, "cancel_order", &["'order_type'"]),
        "Error during execution: string indices must be integers, not 'str'"
    );
    assert_eq!(
        run(&mut b, "get_order_details", &["'order_type'"]),
        "Error during execution: 'str' object has no attribute 'copy'"
    );
    assert_eq!(
        run(&mut b, "get_order_details", &["1"]),
        r#"{"error": "Order with ID 1 not found.Here is the list of orders_id: [12345, 'order_type']"}"#
    );
}

#[test]
fn state_holds_int_order_keys_and_the_long_context_flag() {
    let b = bot(
        "{'orders': {'12': {}}, 'account_info': {'balance': 1}}",
        true,
    );
    let state = b.state();
    let names: Vec<&str> = state.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "orders",
            "account_info",
            "authenticated",
            "market_status",
            "order_counter",
            "stocks",
            "watch_list",
            "transaction_history",
            "long_context"
        ]
    );
    let orders = crate::benchmarks::bfcl::multi_turn::state::canonical_exact(&state[0].1);
    assert_eq!(orders, r#"{"__dict_items__":[[12,{}]]}"#);
    assert!(matches!(state[8].1, State::Bool(true)));
}

#[test]
fn huge_hostile_arguments_stay_linear() {
    let mut b = logged_in("{}", false);
    let many = PyValue::List(vec![lit("'AAPL'"); 200_000]);
    let out = b
        .call("notify_price_change", vec![many.clone(), lit("0.0")])
        .unwrap();
    let Output::Value(PyValue::Dict(entries)) = out else {
        panic!("a dict")
    };
    assert_eq!(entries.len(), 1);
    let long = PyValue::Str(PyStr(vec![u32::from('A'); 200_000]));
    assert!(
        b.call("filter_stocks_by_price", vec![long, lit("1"), lit("2")])
            .is_ok()
    );
    assert!(b.call("add_to_watchlist", vec![many]).is_err());
}
