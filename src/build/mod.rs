//! Building task sets (ITC §3): import API catalogs, sample them, make
//! confusion sets, generate queries, filter them with two judges, write gold
//! answers, split; and the pipeline that runs these stages in order.
//!
//! Uses [`crate::models`] (the chats of the model stages) and [`crate::spec`].

pub mod answer;
pub mod catalog;
pub mod chat;
pub mod confuse;
pub mod filter;
pub mod generate;
pub mod pipeline;
pub mod sample;
