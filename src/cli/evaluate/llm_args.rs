//! The LLM judge's command-line options of `qajudge evaluate` (docs/scoring.md,
//! The LLM judge), and the judge they build: the server and model, the
//! environment variable holding its key, its cache, its timeout. Nothing is
//! sent anywhere without `--llm-judge`.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::bail;
use clap::Args;

/// The LLM judge's options (docs/scoring.md, The LLM judge): nothing is sent
/// anywhere without `--llm-judge`.
#[derive(Debug, Clone, Args)]
pub struct LlmArgs {
    /// Ask an OpenAI-compatible chat-completions server (its base URL:
    /// `http://127.0.0.1:11434/v1` for Ollama; requests go to
    /// URL/chat/completions) about free-text answers no rule matched; its
    /// `same` verdicts count as matches (docs/scoring.md, The LLM judge).
    #[arg(long, value_name = "URL", requires = "llm_model")]
    pub llm_judge: Option<String>,
    /// The model the judge server runs.
    #[arg(long, value_name = "NAME", requires = "llm_judge")]
    pub llm_model: Option<String>,
    /// The environment variable holding the server's API key, sent only as
    /// an `Authorization: Bearer` header.
    #[arg(long, value_name = "VAR", requires = "llm_judge")]
    pub llm_key_env: Option<String>,
    /// Where verdicts are cached (default: `$XDG_CACHE_HOME/qajudge/llm-judge/`
    /// or `~/.cache/qajudge/llm-judge/`).
    #[arg(long, value_name = "DIR", requires = "llm_judge")]
    pub llm_cache: Option<PathBuf>,
    /// Ask the judge again about what its cache holds, and keep the new
    /// verdicts in place of the old.
    #[arg(long, requires = "llm_judge")]
    pub llm_refresh: bool,
    /// Also ask the judge about query pairs whose algebra equivalence is
    /// `unknown` (with `--experiments qa,query`).
    #[arg(long, requires = "llm_judge")]
    pub llm_queries: bool,
    /// The timeout of one call to the judge, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub llm_timeout: u64,
    /// The most calls to the judge in this evaluation (cached verdicts are
    /// free): an answer past them is `unsure`, with a diagnostic.
    #[arg(long, value_name = "N", default_value_t = crate::llm::DEFAULT_MAX_CALLS)]
    pub llm_max_calls: usize,
    /// The time this evaluation's calls to the judge may take, in seconds
    /// from the first: an answer after it is `unsure`, with a diagnostic.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::llm::DEFAULT_DEADLINE.as_secs())]
    pub llm_deadline: u64,
}

impl LlmArgs {
    /// The judge these options ask, `None` without `--llm-judge`.
    pub fn judge(&self) -> anyhow::Result<Option<Arc<crate::llm::Judge>>> {
        let (Some(url), Some(model)) = (&self.llm_judge, &self.llm_model) else {
            return Ok(None);
        };
        let key = match &self.llm_key_env {
            Some(var) => match std::env::var(var) {
                Ok(k) if !k.is_empty() => Some(k),
                _ => bail!("--llm-key-env {var}: the variable is not set or empty; export the key in it, or leave --llm-key-env out for a server without a key"),
            },
            None => None,
        };
        let timeout = std::time::Duration::from_secs(self.llm_timeout.max(1));
        let server = crate::live::ChatServer::new(url, key, timeout, None)?;
        let mut settings = crate::llm::JudgeSettings::new(model.clone());
        settings.queries = self.llm_queries;
        settings.refresh = self.llm_refresh;
        settings.max_calls = self.llm_max_calls;
        settings.deadline = std::time::Duration::from_secs(self.llm_deadline);
        settings.cache = Some(match &self.llm_cache {
            Some(dir) => dir.clone(),
            None => crate::llm::default_cache_dir().ok_or_else(|| {
                anyhow::anyhow!("--llm-judge: neither XDG_CACHE_HOME nor HOME is set to put its cache under; give --llm-cache DIR")
            })?,
        });
        Ok(Some(Arc::new(crate::llm::Judge::new(
            settings,
            Box::new(server),
        )?)))
    }
}
