//! The one integration-test binary: real benchmark and system files from
//! `../shared/data`, and the `qajudge` command line end to end.

mod allow_list;
mod annotate;
mod api;
mod browser;
mod cli;
mod components;
mod data;
mod endpoint;
mod families;
mod faults;
mod features;
mod fetch;
mod full_disk;
mod hostile;
mod index;
mod inputs;
mod leaderboard;
mod live_text2sparql;
mod names;
mod official;
mod outputs;
mod paper;
mod profiles;
mod published;
mod python_client;
mod query_limits;
mod real_data;
mod recipes;
mod sample;
mod secrets;
mod serve;
mod spark;
mod text2sparql;
mod virtuoso;
