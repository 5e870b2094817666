//! Where `qajudge evaluate`'s gold comes from besides `--gold`, and what it
//! reads beside it: the gold the run files carry (merged by question id), the
//! question ids of `--questions` or `--sample` that keep part of the gold, and
//! the side files profiles read (`--ontology` for `grailqa`, `--train` for
//! `kqapro`). Each check fails with a message that names the file.

use std::path::{Path, PathBuf};

use anyhow::bail;

/// The gold the run files carry (docs/scoring.md, Other benchmark families):
/// the union of their golds, by question id, named after the first run. Every
/// run file must carry one; a question two files carry must be the same in
/// both (a file that lacks some questions leaves them missing for that run).
pub(super) fn own_gold(
    paths: &[PathBuf],
    runs: &mut [crate::model::Dataset],
) -> anyhow::Result<(crate::model::Dataset, String)> {
    let mut gold: Option<(crate::model::Dataset, String)> = None;
    for (path, run) in paths.iter().zip(runs.iter_mut()) {
        // the run's ids are its own gold's: no join by text
        run.join_by_text = false;
        run.by_position = false;
        let Some(own) = run.own_gold.take() else {
            bail!(
                "{}: this run carries no gold of its own; give the benchmark with --gold FILE",
                path.display()
            );
        };
        let Some((merged, name)) = gold.as_mut() else {
            gold = Some((*own, format!("{} (its own gold)", path.display())));
            continue;
        };
        for q in own.questions {
            match merged.questions.iter().find(|g| g.id == q.id) {
                Some(g) if *g != q => bail!(
                    "{}: question {} differs from the same question in {name}; score runs of different golds separately, or give the benchmark with --gold FILE",
                    path.display(),
                    q.id
                ),
                Some(_) => {}
                None => merged.questions.push(q),
            }
        }
    }
    gold.ok_or_else(|| {
        anyhow::anyhow!("no --gold and no run file: give the benchmark with --gold FILE")
    })
}

/// The question ids a `--questions` file lists (one per line; blank lines and
/// `#` comments skipped); an id the gold does not have is an error naming its
/// line, as is a file that lists none.
pub(super) fn question_ids(
    gold: &crate::model::Dataset,
    path: &Path,
) -> anyhow::Result<std::collections::BTreeSet<String>> {
    let bytes = crate::cli::input::read(path)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}: not UTF-8 text at byte {}; give one question id per line",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })?;
    let known: std::collections::HashSet<&str> =
        gold.questions.iter().map(|q| q.id.0.as_str()).collect();
    let mut wanted = std::collections::BTreeSet::new();
    for (n, line) in text.lines().enumerate() {
        let id = line.trim();
        if id.is_empty() || id.starts_with('#') {
            continue;
        }
        if !known.contains(id) {
            bail!(
                "{}:{}: question {id:?} is not in the gold benchmark; list ids of its questions, one per line",
                path.display(),
                n + 1
            );
        }
        wanted.insert(id.to_string());
    }
    if wanted.is_empty() {
        bail!(
            "{}: lists no question id; give one per line",
            path.display()
        );
    }
    Ok(wanted)
}

/// The gold's audit (`evaluate --audit`): its checks, and each query executed
/// 3 times on the knowledge graph when there is one; every question it finds
/// unstable is marked so in `gold` (scored apart), keeping a mark the gold
/// already has.
pub(super) fn audited(
    gold: &mut crate::model::Dataset,
    kg: Option<&crate::sparql::KnowledgeGraph>,
    options: crate::sparql::ExecOptions,
    profile: crate::eval::Profile,
) -> crate::audit::AuditReport {
    use crate::audit::Store;
    let store = kg.map(|kg| crate::sparql::AuditStore::new(kg, options));
    let stores: Vec<&dyn Store> = store.iter().map(|s| s as &dyn Store).collect();
    let report = crate::audit::audit(
        gold,
        &stores,
        crate::audit::AuditOptions {
            repeat: 3,
            text2sparql: profile == crate::eval::Profile::Text2sparql,
        },
    );
    let unstable: std::collections::HashMap<String, String> =
        crate::audit::unstable_questions(&report)
            .into_iter()
            .collect();
    for q in &mut gold.questions {
        if q.unstable.is_none() {
            q.unstable = unstable.get(&q.id.0).cloned();
        }
    }
    report
}

/// GrailQA's schema files, in the order they are read and digested.
const ONTOLOGY_FILES: [&str; 3] = ["fb_roles", "fb_types", "reverse_properties"];

/// The bytes of GrailQA's schema files in `dir` ([`ONTOLOGY_FILES`]).
fn ontology_files(dir: &Path) -> anyhow::Result<Vec<Vec<u8>>> {
    ONTOLOGY_FILES
        .iter()
        .map(|name| crate::cli::input::read(&dir.join(name)))
        .collect()
}

/// The total size and digest of GrailQA's schema files in `dir`, as a
/// report's receipt records them ([`crate::digest::named_parts_sha256`]).
pub(in crate::cli) fn ontology_digest(dir: &Path) -> anyhow::Result<(u64, String)> {
    Ok(digest_of_files(&ontology_files(dir)?))
}

fn digest_of_files(files: &[Vec<u8>]) -> (u64, String) {
    let bytes = files.iter().map(|f| f.len() as u64).sum();
    let parts = ONTOLOGY_FILES
        .iter()
        .zip(files)
        .map(|(n, b)| (*n, b.as_slice()));
    (bytes, crate::digest::named_parts_sha256(parts))
}

/// Reads GrailQA's schema files from `dir` for the `grailqa` profile, with
/// their digest for the receipt.
pub(in crate::cli) fn load_ontology(dir: &Path) -> anyhow::Result<crate::eval::profiles::Ontology> {
    let files = ontology_files(dir)?;
    let mut texts = Vec::with_capacity(files.len());
    for (name, bytes) in ONTOLOGY_FILES.iter().zip(&files) {
        texts.push(std::str::from_utf8(bytes).map_err(|_| {
            anyhow::anyhow!(
                "{}: not UTF-8 text; give GrailQA's ontology files",
                dir.join(name).display()
            )
        })?);
    }
    let mut ontology = crate::eval::profiles::Ontology::parse(texts[0], texts[1], texts[2]);
    let (relations, types) = ontology.size();
    if relations == 0 || types == 0 {
        bail!(
            "{}: fb_roles or fb_types holds no line of GrailQA's schema (`domain relation range`, `type meta.subclassOf type`); give the folder of GrailQA's ontology files",
            dir.display()
        );
    }
    let (bytes, sha256) = digest_of_files(&files);
    ontology.source = Some(crate::model::InputDigest {
        role: "ontology".into(),
        name: dir.display().to_string(),
        bytes,
        sha256,
    });
    Ok(ontology)
}

/// Reads KQA Pro's training set from `path` for the `kqapro` profile's
/// `zero-shot` category.
pub(in crate::cli) fn load_train(path: &Path) -> anyhow::Result<crate::qald::TrainAnswers> {
    // the digest of the file as stored (compressed, if it is), as
    // `reproduce` computes it
    let (bytes, size, sha256) = crate::cli::input::read_digested(path)?;
    let mut train = crate::qald::parse_kqapro_train(&bytes, &path.display().to_string())?;
    train.source = Some(crate::model::InputDigest {
        role: "train".into(),
        name: path.display().to_string(),
        bytes: size,
        sha256,
    });
    Ok(train)
}
