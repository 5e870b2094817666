//! The versioned prompt of the LLM judge and the reading of its reply
//! (docs/scoring.md, The LLM judge): the chat-completions request body
//! (temperature 0, a fixed seed, a few tokens), the texts cut to their bounds,
//! and a reply read as `same`, `different` or `unsure`.

use serde_json::{json, Value};

use super::{Ask, AskKind, Verdict};

/// The version of the prompt: part of every cache key and of the report.
/// Changing any text of this module changes it.
pub const PROMPT_VERSION: &str = "qajudge-judge-1";

/// The fixed seed sent with every request.
pub const SEED: u64 = 20_261_122;

/// The most characters of an answer or question text sent; a longer text is
/// cut there.
pub const MAX_ANSWER_CHARS: usize = 1_000;

/// The most characters of a query text sent.
pub const MAX_QUERY_CHARS: usize = 8_000;

/// The system message.
pub const SYSTEM: &str = "You judge the answers of a question answering system over a knowledge graph. Reply with exactly one word: same, different or unsure.";

/// `text` cut to at most `max` characters (on a character boundary).
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => text[..at].to_string(),
        None => text.to_string(),
    }
}

/// The user message of an ask, its texts already cut.
pub fn user_message(ask: &Ask) -> String {
    match ask.kind {
        AskKind::Answer => format!(
            "Question: {}\nGold answer: {}\nSystem answer: {}\nDo the gold answer and the system answer name the same thing (the same entity, value or fact) as an answer to the question? Reply with exactly one word: same, different or unsure.",
            ask.question, ask.gold, ask.run
        ),
        AskKind::Query => format!(
            "Question: {}\nGold SPARQL query:\n{}\nSystem SPARQL query:\n{}\nDo the two queries give the same answers on every knowledge graph? Reply with exactly one word: same, different or unsure.",
            ask.question, ask.gold, ask.run
        ),
    }
}

/// The chat-completions request body of an ask.
pub fn request_body(model: &str, ask: &Ask) -> Vec<u8> {
    let body = json!({
        "model": model,
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": user_message(ask)},
        ],
        "temperature": 0,
        "seed": SEED,
        "max_tokens": 8,
        "stream": false,
    });
    body.to_string().into_bytes()
}

/// Why a reply gave no verdict (the verdict is then `unsure`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplyError {
    /// The body is not a chat-completions answer with a message content.
    #[error("the judge's reply is not a chat-completions answer with choices[0].message.content ({0}); check that the server speaks the OpenAI chat-completions protocol")]
    Shape(String),
    /// The content is not one of the three words.
    #[error("the judge's reply {0:?} is not same, different or unsure")]
    Word(String),
}

/// The verdict a reply body gives: the first word of its
/// `choices[0].message.content` (lower-cased, anything not a letter a
/// separator, so `**Same**.` reads as `same`) must be `same`, `different` or
/// `unsure`.
pub fn parse_reply(body: &[u8]) -> Result<Verdict, ReplyError> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| ReplyError::Shape(e.to_string()))?;
    let content = value
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| ReplyError::Shape("no string at choices[0].message.content".into()))?;
    parse_word(content)
}

/// The verdict of a reply's text (see [`parse_reply`]).
pub fn parse_word(content: &str) -> Result<Verdict, ReplyError> {
    let lowered = content.trim().to_lowercase();
    let first = lowered
        .split(|c: char| !c.is_alphabetic())
        .find(|w| !w.is_empty())
        .unwrap_or("");
    let verdict = match first {
        "same" => Some(Verdict::Same),
        "different" => Some(Verdict::Different),
        "unsure" => Some(Verdict::Unsure),
        _ => None,
    };
    // one word, or a word followed by an explanation
    verdict.ok_or_else(|| ReplyError::Word(cut(content, 200)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask() -> Ask {
        Ask {
            kind: AskKind::Answer,
            question: "Who wrote Dune?".into(),
            gold: "Frank Herbert <http://dbpedia.org/resource/Frank_Herbert>".into(),
            run: "F. Herbert".into(),
        }
    }

    #[test]
    fn the_body_has_temperature_zero_and_the_seed() {
        let body: Value = serde_json::from_slice(&request_body("m", &ask())).unwrap();
        assert_eq!(body["temperature"], 0);
        assert_eq!(body["seed"], SEED);
        assert_eq!(body["model"], "m");
        let user = body["messages"][1]["content"].as_str().unwrap();
        assert!(user.contains("System answer: F. Herbert"), "{user}");
    }

    #[test]
    fn replies_are_read_as_three_words() {
        assert_eq!(parse_word("same"), Ok(Verdict::Same));
        assert_eq!(parse_word(" **Different**.\n"), Ok(Verdict::Different));
        assert_eq!(parse_word("\"unsure\""), Ok(Verdict::Unsure));
        assert_eq!(parse_word("Same. Both name the author."), Ok(Verdict::Same));
        assert!(matches!(parse_word("maybe"), Err(ReplyError::Word(_))));
        assert!(matches!(parse_word(""), Err(ReplyError::Word(_))));
        assert!(matches!(parse_reply(b"{}"), Err(ReplyError::Shape(_))));
        assert!(matches!(
            parse_reply(b"not json"),
            Err(ReplyError::Shape(_))
        ));
        let ok = br#"{"choices":[{"message":{"role":"assistant","content":"different"}}]}"#;
        assert_eq!(parse_reply(ok), Ok(Verdict::Different));
    }

    #[test]
    fn cut_keeps_whole_characters() {
        assert_eq!(cut("héllo", 2), "hé");
        assert_eq!(cut("ab", 5), "ab");
    }
}
