//! Parses every gold query of the shared data and prints the failures by file
//! (a development aid for the annotator; the tests assert the same).

use qajudge::model::Query;

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    let mut stack = vec![dir.clone()];
    let mut files = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if matches!(p.extension().and_then(|e| e.to_str()), Some("json" | "xml")) {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut total, mut failed) = (0, 0);
    for f in files {
        let Ok(d) = qajudge::qald::parse(&std::fs::read(&f).expect("read"), "x") else {
            continue;
        };
        let mut fails = Vec::new();
        for q in &d.questions {
            if let Query::Sparql(s) = &q.query {
                total += 1;
                if let Err(e) = qajudge::query::walk(s) {
                    fails.push((q.id.0.clone(), e.to_string().replace('\n', " ")));
                }
            }
        }
        failed += fails.len();
        if !fails.is_empty() {
            println!(
                "{} {} failures",
                f.strip_prefix(&dir).expect("below").display(),
                fails.len()
            );
            for (id, m) in fails.iter().take(
                std::env::args()
                    .nth(1)
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(3),
            ) {
                println!("   {id}: {}", &m[..m.len().min(150)]);
            }
        }
    }
    println!("{failed} of {total} queries failed");
}
