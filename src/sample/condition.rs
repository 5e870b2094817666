//! `sample --where EXPR` (docs/features.md, "Selecting without SPARQL"): a
//! small, bounded expression language over feature names, parsed and
//! type-checked here and written as a SPARQL FILTER for the features graph.
//!
//! ```text
//! expr   := and ("or" and)*
//! and    := not ("and" not)*
//! not    := "not" not | cmp
//! cmp    := atom (("=" | "!=" | "<" | "<=" | ">" | ">=") atom)?
//! atom   := number | "string" | true | false | feature | "(" expr ")"
//! ```
//!
//! Numeric features compare with numbers, string features (`text`, `type`,
//! `answer_type`, `origin`) with strings by `=` and `!=`, and a boolean
//! feature stands alone or is compared with `true`/`false`. Errors name the
//! 1-based column. Pure.

use super::features::NUMERIC;
use super::vocab::{is_boolean, STRINGS};

/// The longest expression read, in bytes.
pub const MAX_LEN: usize = 4096;
/// The deepest nesting of parentheses and `not`s read.
pub const MAX_DEPTH: usize = 32;

/// Why an expression is refused; each names its 1-based column.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConditionError {
    /// Longer than [`MAX_LEN`].
    #[error("--where is {0} bytes long; give at most {MAX_LEN}")]
    TooLong(usize),
    /// Nested deeper than [`MAX_DEPTH`].
    #[error("--where column {0}: nested deeper than {MAX_DEPTH}; simplify the expression")]
    TooDeep(usize),
    /// A character that starts no token.
    #[error("--where column {column}: unexpected {found:?}; write comparisons of feature names with numbers or \"strings\", joined by and, or, not")]
    Unexpected {
        /// Where.
        column: usize,
        /// What was found.
        found: String,
    },
    /// A string without its closing quote.
    #[error("--where column {0}: a string is not closed; end it with \"")]
    Unclosed(usize),
    /// A name that is no feature.
    #[error("--where column {column}: unknown feature {name:?}; use one of {known}")]
    Unknown {
        /// Where.
        column: usize,
        /// The name.
        name: String,
        /// The features known.
        known: String,
    },
    /// Operands or an operator of the wrong type.
    #[error("--where column {column}: {message}")]
    Type {
        /// Where.
        column: usize,
        /// What is wrong and what to do.
        message: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64),
    Str(String),
    Name(String),
    Op(&'static str),
    Open,
    Close,
}

fn tokens(text: &str) -> Result<Vec<(Tok, usize)>, ConditionError> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let col = |i: usize| text[..i].chars().count() + 1;
    let mut out = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        let (i, c) = chars[k];
        if c.is_whitespace() {
            k += 1;
            continue;
        }
        let next = chars.get(k + 1).map(|(_, c)| *c);
        let two = |op: &'static str| (Tok::Op(op), 2);
        let (tok, len) = match (c, next) {
            ('(', _) => (Tok::Open, 1),
            (')', _) => (Tok::Close, 1),
            ('!', Some('=')) => two("!="),
            ('<', Some('=')) => two("<="),
            ('>', Some('=')) => two(">="),
            ('=', Some('=')) => two("="),
            ('=', _) => (Tok::Op("="), 1),
            ('<', _) => (Tok::Op("<"), 1),
            ('>', _) => (Tok::Op(">"), 1),
            ('"', _) => {
                let mut s = String::new();
                let mut j = k + 1;
                loop {
                    match chars.get(j) {
                        None => return Err(ConditionError::Unclosed(col(i))),
                        Some((_, '"')) => break,
                        Some((_, '\\')) if chars.get(j + 1).is_some() => {
                            s.push(chars[j + 1].1);
                            j += 2;
                        }
                        Some((_, ch)) => {
                            s.push(*ch);
                            j += 1;
                        }
                    }
                }
                (Tok::Str(s), j + 1 - k)
            }
            (c, _) if c.is_ascii_digit() || c == '.' || c == '-' => {
                let mut j = k + 1;
                while chars
                    .get(j)
                    .is_some_and(|(_, ch)| ch.is_ascii_digit() || *ch == '.')
                {
                    j += 1;
                }
                let end = chars.get(j).map_or(text.len(), |(e, _)| *e);
                let n = text[i..end]
                    .parse::<f64>()
                    .ok()
                    .filter(|n| n.is_finite())
                    .ok_or_else(|| ConditionError::Unexpected {
                        column: col(i),
                        found: text[i..end].to_string(),
                    })?;
                (Tok::Num(n), j - k)
            }
            (c, _) if c.is_ascii_alphabetic() || c == '_' => {
                let mut j = k + 1;
                while chars
                    .get(j)
                    .is_some_and(|(_, ch)| ch.is_ascii_alphanumeric() || *ch == '_')
                {
                    j += 1;
                }
                let end = chars.get(j).map_or(text.len(), |(e, _)| *e);
                (Tok::Name(text[i..end].to_string()), j - k)
            }
            (c, _) => {
                return Err(ConditionError::Unexpected {
                    column: col(i),
                    found: c.to_string(),
                })
            }
        };
        out.push((tok, col(i)));
        k += len;
    }
    Ok(out)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Type {
    Number,
    Text,
    Bool,
}

/// A parsed condition: its SPARQL expression and the features it names.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// The SPARQL expression over `?<feature>` variables.
    pub sparql: String,
    /// The features named, in first-seen order.
    pub features: Vec<String>,
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    at: usize,
    end: usize,
    features: Vec<String>,
}

impl Parser {
    fn column(&self) -> usize {
        self.toks.get(self.at).map_or(self.end, |(_, c)| *c)
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|(t, _)| t)
    }

    fn keyword(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Tok::Name(n)) if n.eq_ignore_ascii_case(word))
    }

    fn unexpected(&self) -> ConditionError {
        match self.toks.get(self.at) {
            Some((t, c)) => ConditionError::Unexpected {
                column: *c,
                found: match t {
                    Tok::Num(n) => n.to_string(),
                    Tok::Str(s) => format!("\"{s}\""),
                    Tok::Name(n) => n.clone(),
                    Tok::Op(o) => (*o).to_string(),
                    Tok::Open => "(".into(),
                    Tok::Close => ")".into(),
                },
            },
            None => ConditionError::Unexpected {
                column: self.end,
                found: "the end".into(),
            },
        }
    }

    fn logical(
        &mut self,
        depth: usize,
        word: &str,
    ) -> Result<(String, Type, usize), ConditionError> {
        let column = self.column();
        let mut parts = Vec::new();
        loop {
            let (s, t, c) = if word == "or" {
                self.logical(depth, "and")?
            } else {
                self.not(depth)?
            };
            if parts.is_empty() && !self.keyword(word) {
                return Ok((s, t, c));
            }
            if t != Type::Bool {
                return Err(ConditionError::Type {
                    column: c,
                    message: format!("{word} joins conditions; compare this value first (e.g. > 1 or = \"what\")"),
                });
            }
            parts.push(s);
            if !self.keyword(word) {
                break;
            }
            self.at += 1;
        }
        let op = if word == "or" { " || " } else { " && " };
        Ok((format!("({})", parts.join(op)), Type::Bool, column))
    }

    fn not(&mut self, depth: usize) -> Result<(String, Type, usize), ConditionError> {
        if depth > MAX_DEPTH {
            return Err(ConditionError::TooDeep(self.column()));
        }
        if self.keyword("not") {
            let column = self.column();
            self.at += 1;
            let (s, t, c) = self.not(depth + 1)?;
            if t != Type::Bool {
                return Err(ConditionError::Type {
                    column: c,
                    message: "not takes a condition; compare this value first".into(),
                });
            }
            return Ok((format!("(!{s})"), Type::Bool, column));
        }
        self.comparison(depth)
    }

    fn comparison(&mut self, depth: usize) -> Result<(String, Type, usize), ConditionError> {
        let (left, lt, column) = self.atom(depth)?;
        let Some(Tok::Op(op)) = self.peek().cloned() else {
            return Ok((left, lt, column));
        };
        let op_column = self.column();
        self.at += 1;
        let (right, rt, rc) = self.atom(depth)?;
        if lt != rt {
            return Err(ConditionError::Type {
                column: rc,
                message: format!(
                    "{} compared with {}; compare numbers with numbers, strings with \"strings\", booleans with true or false",
                    name(lt),
                    name(rt)
                ),
            });
        }
        if lt != Type::Number && !matches!(op, "=" | "!=") {
            return Err(ConditionError::Type {
                column: op_column,
                message: format!("{op} orders numbers only; use = or != with {}", name(lt)),
            });
        }
        Ok((format!("({left} {op} {right})"), Type::Bool, column))
    }

    fn atom(&mut self, depth: usize) -> Result<(String, Type, usize), ConditionError> {
        let column = self.column();
        let tok = self.peek().cloned().ok_or_else(|| self.unexpected())?;
        let out = match tok {
            Tok::Num(n) => (format!("{n:?}"), Type::Number),
            Tok::Str(s) => (sparql_string(&s), Type::Text),
            Tok::Name(n) if n == "true" || n == "false" => (n, Type::Bool),
            Tok::Name(n) if NUMERIC.contains(&n.as_str()) || STRINGS.contains(&n.as_str()) => {
                let t = if STRINGS.contains(&n.as_str()) {
                    Type::Text
                } else if is_boolean(&n) {
                    Type::Bool
                } else {
                    Type::Number
                };
                if !self.features.contains(&n) {
                    self.features.push(n.clone());
                }
                (format!("?{n}"), t)
            }
            Tok::Name(n) if ["and", "or", "not"].contains(&n.as_str()) => {
                return Err(self.unexpected())
            }
            Tok::Name(n) => {
                return Err(ConditionError::Unknown {
                    column,
                    name: n,
                    known: NUMERIC
                        .iter()
                        .chain(STRINGS.iter())
                        .copied()
                        .collect::<Vec<_>>()
                        .join(", "),
                })
            }
            Tok::Open => {
                if depth >= MAX_DEPTH {
                    return Err(ConditionError::TooDeep(column));
                }
                self.at += 1;
                let (s, t, _) = self.logical(depth + 1, "or")?;
                if self.peek() != Some(&Tok::Close) {
                    return Err(self.unexpected());
                }
                self.at += 1;
                return Ok((s, t, column));
            }
            Tok::Op(_) | Tok::Close => return Err(self.unexpected()),
        };
        self.at += 1;
        Ok((out.0, out.1, column))
    }
}

fn name(t: Type) -> &'static str {
    match t {
        Type::Number => "a number",
        Type::Text => "a string",
        Type::Bool => "a boolean",
    }
}

/// A SPARQL string literal of `s`.
fn sparql_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Parses and type-checks `text`: a condition, as a SPARQL expression.
pub fn parse(text: &str) -> Result<Condition, ConditionError> {
    if text.len() > MAX_LEN {
        return Err(ConditionError::TooLong(text.len()));
    }
    let toks = tokens(text)?;
    let mut p = Parser {
        toks,
        at: 0,
        end: text.chars().count() + 1,
        features: Vec::new(),
    };
    let (sparql, t, column) = p.logical(0, "or")?;
    if p.at < p.toks.len() {
        return Err(p.unexpected());
    }
    if t != Type::Bool {
        return Err(ConditionError::Type {
            column,
            message: format!(
                "the condition is {}; compare it (e.g. triple_patterns > 1)",
                name(t)
            ),
        });
    }
    Ok(Condition {
        sparql,
        features: p.features,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_become_sparql() {
        let c = parse(r#"triple_patterns > 1 and type = "what""#).expect("parses");
        assert_eq!(
            c.sparql,
            r#"((?triple_patterns > 1.0) && (?type = "what"))"#
        );
        assert_eq!(c.features, ["triple_patterns", "type"]);
        let c = parse("not filter or (result_size >= 1 and union = false)").expect("parses");
        assert_eq!(
            c.sparql,
            "((!?filter) || ((?result_size >= 1.0) && (?union = false)))"
        );
        assert_eq!(parse("ask").expect("parses").sparql, "?ask");
        let c = parse(r#"text != "say \"hi\"""#).expect("parses");
        assert_eq!(c.sparql, r#"(?text != "say \"hi\"")"#);
    }

    #[test]
    fn errors_name_the_column() {
        assert_eq!(
            parse("words > 1 and wrods < 3").map_err(|e| match e {
                ConditionError::Unknown { column, name, .. } => (column, name),
                other => panic!("{other}"),
            }),
            Err((15, "wrods".to_string()))
        );
        let e = parse(r#"words = "what""#).expect_err("a type error");
        assert!(matches!(e, ConditionError::Type { column: 9, .. }), "{e}");
        let e = parse(r#"type < "what""#).expect_err("strings do not order");
        assert!(matches!(e, ConditionError::Type { column: 6, .. }), "{e}");
        assert!(matches!(
            parse("words"),
            Err(ConditionError::Type { column: 1, .. })
        ));
        assert!(matches!(
            parse("words > "),
            Err(ConditionError::Unexpected { column: 9, .. })
        ));
        assert!(matches!(parse("\"open"), Err(ConditionError::Unclosed(1))));
        assert!(matches!(
            parse("words > 1 )"),
            Err(ConditionError::Unexpected { column: 11, .. })
        ));
        assert!(matches!(
            parse("words # 1"),
            Err(ConditionError::Unexpected { column: 7, .. })
        ));
        assert!(parse("words and 1").is_err());
    }

    #[test]
    fn hostile_input_is_bounded() {
        let deep = format!("{}ask{}", "(".repeat(100), ")".repeat(100));
        assert!(matches!(parse(&deep), Err(ConditionError::TooDeep(_))));
        let nots = format!("{}ask", "not ".repeat(100));
        assert!(matches!(parse(&nots), Err(ConditionError::TooDeep(_))));
        let long = "ask or ".repeat(1000) + "ask";
        assert!(matches!(parse(&long), Err(ConditionError::TooLong(_))));
        // within bounds: a long flat chain is fine
        let ok = "ask or ".repeat(500) + "ask";
        assert!(parse(&ok).is_ok());
    }
}
