//! Prepared forms of registered benchmarks, kept between evaluations: the
//! server's next experiment on a benchmark takes its annotated and resolved
//! gold from here instead of preparing it again, per options and index.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::{prepare_gold, Options, PreparedGold};
use crate::index::Equivalence;
use crate::model::Dataset;

/// Prepared forms of registered benchmarks, per benchmark and options, so that
/// the next experiment on a benchmark does not annotate and resolve it again.
#[derive(Default)]
pub struct GoldCache {
    prepared: Mutex<HashMap<String, Vec<Arc<PreparedGold>>>>,
}

/// Prepared forms kept per benchmark (the oldest is dropped first).
const PREPARED_PER_BENCHMARK: usize = 8;

impl GoldCache {
    /// The prepared form of benchmark `name` for these options and index,
    /// prepared now when there is none yet.
    pub fn get(
        &self,
        name: &str,
        gold: &Dataset,
        options: &Options,
        index: Option<&dyn Equivalence>,
    ) -> Arc<PreparedGold> {
        let found = self.prepared.lock().ok().and_then(|m| {
            m.get(name)?
                .iter()
                .find(|p| p.fits(gold, options, index))
                .cloned()
        });
        if let Some(p) = found {
            return p;
        }
        let p = Arc::new(prepare_gold(gold, options, index));
        if let Ok(mut m) = self.prepared.lock() {
            let list = m.entry(name.to_string()).or_default();
            if list.len() == PREPARED_PER_BENCHMARK {
                list.remove(0);
            }
            list.push(Arc::clone(&p));
        }
        p
    }
}
