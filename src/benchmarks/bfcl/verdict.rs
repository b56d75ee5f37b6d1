//! What a check says: the official error types ([`ErrorType`]), one
//! answer's verdict ([`Verdict`]) and a checker's failure ([`Fail`]), shared
//! by the checker ([`check`](super::check)) and the value rules
//! ([`check_values`](super::check_values)).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// Every `error_type` the official Python AST and multi-turn paths can give.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorType {
    /// `ast_decoder:decoder_failed`: the text did not decode.
    DecoderFailed,
    /// `ast_decoder:decoder_wrong_output_format`: decoded, but not a list
    /// of `{name: {arguments}}` (function-calling models).
    DecoderWrongOutputFormat,
    /// `simple_function_checker:wrong_count`: simple, not exactly one call.
    WrongCount,
    /// `simple_function_checker:wrong_func_name`.
    WrongFuncName,
    /// `simple_function_checker:missing_required`.
    MissingRequired,
    /// `simple_function_checker:unexpected_param`.
    UnexpectedParam,
    /// `simple_function_checker:missing_optional`.
    MissingOptional,
    /// `multiple_function_checker:wrong_count`.
    MultipleWrongCount,
    /// `parallel_function_checker_no_order:wrong_count`.
    ParallelWrongCount,
    /// `parallel_function_checker_no_order:cannot_find_match`.
    CannotFindMatch,
    /// `type_error:simple`.
    TypeSimple,
    /// `type_error:nested`.
    TypeNested,
    /// `value_error:string`.
    ValueString,
    /// `value_error:others`.
    ValueOthers,
    /// `value_error:list/tuple`.
    ValueListTuple,
    /// `value_error:dict_key`.
    ValueDictKey,
    /// `value_error:dict_value`.
    ValueDictValue,
    /// `value_error:list_dict_count`.
    ValueListDictCount,
    /// `dict_checker:unclear`: a dict parameter whose only alternatives are `""`.
    DictUnclear,
    /// `list_dict_checker:unclear`: an array-of-dicts parameter whose
    /// allowed list is empty (in the official source; not in the data).
    ListDictUnclear,
    /// `irrelevance_error:decoder_success`: a call where none was right.
    IrrelevanceDecoderSuccess,
    /// `relevance_error:decoder_failed`: no call where one was right.
    RelevanceDecoderFailed,
    /// `multi_turn:inference_error`: the result is not a list of turns.
    MultiTurnInferenceError,
    /// `multi_turn:force_terminated`: another number of turns than the
    /// ground truth's.
    MultiTurnForceTerminated,
    /// `multi_turn:empty_turn_model_response`: no decoded step in a turn
    /// whose ground truth is not empty.
    MultiTurnEmptyTurn,
    /// `multi_turn:instance_state_mismatch`: an API instance's public state
    /// differs from the ground truth's.
    MultiTurnStateMismatch,
    /// `multi_turn:execution_response_mismatch`: a ground-truth result
    /// string is missing from the model's results so far.
    MultiTurnResponseMismatch,
}

impl ErrorType {
    /// Every error type.
    pub const ALL: [ErrorType; 27] = [
        ErrorType::DecoderFailed,
        ErrorType::DecoderWrongOutputFormat,
        ErrorType::WrongCount,
        ErrorType::WrongFuncName,
        ErrorType::MissingRequired,
        ErrorType::UnexpectedParam,
        ErrorType::MissingOptional,
        ErrorType::MultipleWrongCount,
        ErrorType::ParallelWrongCount,
        ErrorType::CannotFindMatch,
        ErrorType::TypeSimple,
        ErrorType::TypeNested,
        ErrorType::ValueString,
        ErrorType::ValueOthers,
        ErrorType::ValueListTuple,
        ErrorType::ValueDictKey,
        ErrorType::ValueDictValue,
        ErrorType::ValueListDictCount,
        ErrorType::DictUnclear,
        ErrorType::ListDictUnclear,
        ErrorType::IrrelevanceDecoderSuccess,
        ErrorType::RelevanceDecoderFailed,
        ErrorType::MultiTurnInferenceError,
        ErrorType::MultiTurnForceTerminated,
        ErrorType::MultiTurnEmptyTurn,
        ErrorType::MultiTurnStateMismatch,
        ErrorType::MultiTurnResponseMismatch,
    ];

    /// The official text, as the score file writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorType::DecoderFailed => "ast_decoder:decoder_failed",
            ErrorType::DecoderWrongOutputFormat => "ast_decoder:decoder_wrong_output_format",
            ErrorType::WrongCount => "simple_function_checker:wrong_count",
            ErrorType::WrongFuncName => "simple_function_checker:wrong_func_name",
            ErrorType::MissingRequired => "simple_function_checker:missing_required",
            ErrorType::UnexpectedParam => "simple_function_checker:unexpected_param",
            ErrorType::MissingOptional => "simple_function_checker:missing_optional",
            ErrorType::MultipleWrongCount => "multiple_function_checker:wrong_count",
            ErrorType::ParallelWrongCount => "parallel_function_checker_no_order:wrong_count",
            ErrorType::CannotFindMatch => "parallel_function_checker_no_order:cannot_find_match",
            ErrorType::TypeSimple => "type_error:simple",
            ErrorType::TypeNested => "type_error:nested",
            ErrorType::ValueString => "value_error:string",
            ErrorType::ValueOthers => "value_error:others",
            ErrorType::ValueListTuple => "value_error:list/tuple",
            ErrorType::ValueDictKey => "value_error:dict_key",
            ErrorType::ValueDictValue => "value_error:dict_value",
            ErrorType::ValueListDictCount => "value_error:list_dict_count",
            ErrorType::DictUnclear => "dict_checker:unclear",
            ErrorType::ListDictUnclear => "list_dict_checker:unclear",
            ErrorType::IrrelevanceDecoderSuccess => "irrelevance_error:decoder_success",
            ErrorType::RelevanceDecoderFailed => "relevance_error:decoder_failed",
            ErrorType::MultiTurnInferenceError => "multi_turn:inference_error",
            ErrorType::MultiTurnForceTerminated => "multi_turn:force_terminated",
            ErrorType::MultiTurnEmptyTurn => "multi_turn:empty_turn_model_response",
            ErrorType::MultiTurnStateMismatch => "multi_turn:instance_state_mismatch",
            ErrorType::MultiTurnResponseMismatch => "multi_turn:execution_response_mismatch",
        }
    }

    /// The error type with this official text.
    pub fn parse(text: &str) -> Option<ErrorType> {
        ErrorType::ALL.into_iter().find(|e| e.as_str() == text)
    }
}

impl fmt::Display for ErrorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ErrorType, D::Error> {
        let text = String::deserialize(d)?;
        ErrorType::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown BFCL error type {text:?}")))
    }
}

/// One official verdict: `valid`, and for an invalid answer its
/// `error_type` and the official `error` messages (strings, or nested
/// dicts for parallel mismatches).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Whether the answer is correct.
    pub valid: bool,
    /// Why not (`None` when valid).
    pub error_type: Option<ErrorType>,
    /// The official messages (`[]` when valid).
    pub errors: Vec<Value>,
}

impl Verdict {
    /// A valid verdict.
    pub fn valid() -> Verdict {
        Verdict {
            valid: true,
            error_type: None,
            errors: Vec::new(),
        }
    }

    /// An invalid verdict.
    pub fn invalid(error_type: ErrorType, errors: Vec<Value>) -> Verdict {
        Verdict {
            valid: false,
            error_type: Some(error_type),
            errors,
        }
    }

    /// The verdict of a checker's result.
    pub fn from_check(result: Result<(), Fail>) -> Verdict {
        match result {
            Ok(()) => Verdict::valid(),
            Err(f) => Verdict::invalid(f.kind, f.errors),
        }
    }
}

/// A checker's failure: the error type and its messages.
#[derive(Debug, Clone, PartialEq)]
pub struct Fail {
    /// The error type.
    pub kind: ErrorType,
    /// The messages.
    pub errors: Vec<Value>,
}

impl Fail {
    pub(crate) fn one(kind: ErrorType, message: String) -> Fail {
        Fail {
            kind,
            errors: vec![Value::String(message)],
        }
    }
}
