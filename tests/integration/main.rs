//! The one integration-test binary: real benchmark and system files from
//! `../shared/data`, and the `qajudge` command line end to end.

mod annotate;
mod api;
mod browser;
mod cli;
mod components;
mod data;
mod endpoint;
mod faults;
mod index;
mod live_text2sparql;
mod profiles;
mod published;
mod python_client;
mod real_data;
mod recipes;
mod serve;
mod spark;
mod text2sparql;
mod virtuoso;
