//! Writes a synthetic N-Triples dump of N million statements with realistic IRI
//! shapes (DBpedia resources in several languages, Wikidata entities, Wikipedia
//! articles, Freebase ids, GND) and a heavy-tailed class-size distribution (most
//! classes of 2–4 IRIs, a few of thousands), plus labels and types, for benchmarks.
//!
//! With `--shape sameas-cc` it writes owl:sameAs links only, in the shape of the
//! sameAs.cc closure (Beek et al., ESWC 2018: 558.9 M links over 179.7 M IRIs in
//! 48.9 M classes, the largest of 177,794 IRIs): about 3.7 IRIs per class and
//! 3.1 links per IRI (a spanning tree of each class and random links within it,
//! repeats and both directions included), IRIs of many hosts, and one class of
//! 177,794 IRIs. OUT may be a named pipe (`mkfifo`), so that no dump of tens of
//! gigabytes is written to disk.
//!
//! `cargo run --release --example gen_dump -- OUT.nt MILLIONS [SEED] [--shape sameas-cc]`

use std::io::{BufWriter, Write};

/// The project's SplitMix64, with `u64` bounds.
struct Rng(qajudge::rng::SplitMix64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0.next_u64() % n
    }
}

const LANGS: [&str; 8] = ["de", "fr", "es", "it", "nl", "pl", "ja", "ru"];
const SAME_AS: &str = "<http://www.w3.org/2002/07/owl#sameAs>";
const LABEL: &str = "<http://www.w3.org/2000/01/rdf-schema#label>";
const TYPE: &str = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>";

fn title(rng: &mut Rng, entity: u64) -> String {
    const SYL: [&str; 16] = [
        "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "bra", "cel", "dor", "fen", "gal", "hum",
        "ist", "jor",
    ];
    let mut t = String::new();
    let mut x = entity.wrapping_mul(2_654_435_761) ^ rng.below(4);
    for i in 0..3 + (entity % 3) {
        if i == 2 {
            t.push('_');
        }
        t.push_str(SYL[(x % 16) as usize]);
        x /= 16;
    }
    let mut chars = t.chars();
    let first = chars.next().map(|c| c.to_ascii_uppercase()).unwrap_or('X');
    format!("{first}{}_{entity}", chars.as_str())
}

/// The IRI of member `k` of class `class` in the sameAs.cc shape: hosts and
/// path shapes of the LOD cloud's identity links.
fn lod_iri(class: u64, k: u64, out: &mut String) {
    use std::fmt::Write as _;
    out.clear();
    let x = qajudge::rng::mix(class ^ (k << 40));
    let _ = match k % 12 {
        0 => write!(out, "<http://dbpedia.org/resource/E{class}_{x:x}>"),
        1 => write!(out, "<http://www.wikidata.org/entity/Q{}>", class * 13 + k),
        2 => write!(
            out,
            "<http://{}.dbpedia.org/resource/E{class}_{k}>",
            LANGS[(x % 8) as usize]
        ),
        3 => write!(out, "<http://rdf.freebase.com/ns/m.0{:x}>", class * 31 + k),
        4 => write!(out, "<http://sws.geonames.org/{}/>", class * 7 + k),
        5 => write!(out, "<http://viaf.org/viaf/{}>", class * 11 + k),
        6 => write!(out, "<http://yago-knowledge.org/resource/E{class}_{k}>"),
        7 => write!(out, "<http://d-nb.info/gnd/{}-{}>", class * 13 + k, k % 10),
        8 => write!(out, "<http://data.nytimes.com/N{x:016x}>"),
        9 => write!(
            out,
            "<http://www4.wiwiss.fu-berlin.de/bookmashup/books/{x:x}{k}>"
        ),
        10 => write!(
            out,
            "<https://{}.wikipedia.org/wiki/E{class}_{k}>",
            LANGS[(k % 8) as usize]
        ),
        _ => write!(out, "<http://lod.example{}.org/id/{class}/{k}>", x % 1000),
    };
}

/// Writes `target` owl:sameAs statements in the shape of sameAs.cc (see the
/// module's documentation).
fn sameas_cc(w: &mut impl Write, target: u64, rng: &mut Rng) -> std::io::Result<(u64, u64, u64)> {
    const LARGEST: u64 = 177_794;
    let (mut written, mut iris, mut class) = (0u64, 0u64, 0u64);
    let (mut a, mut b) = (String::new(), String::new());
    while written < target {
        class += 1;
        // the largest class first, then sizes with sameAs.cc's mean (~3.7) and tail
        let n = if class == 1 {
            LARGEST.min(target / 3 + 2)
        } else {
            match rng.below(10_000) {
                0..=5_999 => 2,
                6_000..=7_699 => 3,
                7_700..=8_499 => 4,
                8_500..=9_896 => 5 + rng.below(4),
                9_897..=9_996 => 13 + rng.below(88),
                _ => 100 + rng.below(1_900),
            }
        };
        iris += n;
        // a spanning tree (each member linked to an earlier one), then random
        // links within the class: 3.1 links per IRI in all
        let extra = (n * 21).div_ceil(10) + 1;
        for k in 0..n + extra {
            let (i, j) = if k + 1 < n {
                (rng.below(k + 1), k + 1)
            } else {
                (rng.below(n), rng.below(n))
            };
            lod_iri(class, i, &mut a);
            lod_iri(class, j, &mut b);
            writeln!(w, "{a} {SAME_AS} {b} .")?;
            written += 1;
        }
    }
    Ok((written, iris, class))
}

fn main() -> std::io::Result<()> {
    let shape_cc = std::env::args().any(|a| a == "--shape=sameas-cc" || a == "sameas-cc");
    let mut args = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--") && a != "sameas-cc");
    let out = args.next().unwrap_or_else(|| "synthetic.nt".into());
    let millions: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(42);
    let target = (millions * 1_000_000.0) as u64;
    let mut rng = Rng(qajudge::rng::SplitMix64(seed));
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&out)?);
    if shape_cc {
        let (written, iris, classes) = sameas_cc(&mut w, target, &mut rng)?;
        w.flush()?;
        eprintln!("{out}: {written} owl:sameAs statements, {iris} IRIs in {classes} classes");
        return Ok(());
    }
    let mut written = 0u64;
    let mut entity = 0u64;
    while written < target {
        entity += 1;
        let t = title(&mut rng, entity);
        let dbr = format!("<http://dbpedia.org/resource/{t}>");
        let wd = format!("<http://www.wikidata.org/entity/Q{}>", entity * 7 + 3);
        // class size: 2 (45%), 3–4 (35%), 5–12 (17%), up to 2000 (rare)
        let r = rng.below(1000);
        let extra = match r {
            0..=449 => 0,
            450..=799 => 1 + rng.below(2),
            800..=997 => 3 + rng.below(8),
            _ => 50 + rng.below(2000),
        };
        writeln!(w, "{dbr} {SAME_AS} {wd} .")?;
        written += 1;
        for k in 0..extra {
            let member = match k % 4 {
                0 => format!(
                    "<http://{}.dbpedia.org/resource/{t}>",
                    LANGS[(k / 4 % 8) as usize]
                ),
                1 => format!(
                    "<https://{}.wikipedia.org/wiki/{t}>",
                    LANGS[(k / 4 % 8) as usize]
                ),
                2 => format!("<http://rdf.freebase.com/ns/m.0{:x}>", entity * 31 + k),
                _ => format!("<http://d-nb.info/gnd/{}-{}>", entity * 13 + k, k % 10),
            };
            // link to the DBpedia IRI or to a previous member, as real link sets do
            let from = if k % 3 == 0 { &dbr } else { &wd };
            writeln!(w, "{from} {SAME_AS} {member} .")?;
            written += 1;
        }
        if rng.below(4) == 0 {
            // the label the lookup benchmark asks for: "Entity <n>"
            writeln!(w, "{wd} {LABEL} \"Entity {entity}\"@en .")?;
            writeln!(
                w,
                "{dbr} {TYPE} <http://dbpedia.org/ontology/Class{}> .",
                entity % 50
            )?;
            written += 2;
        }
    }
    w.flush()?;
    eprintln!("{out}: {written} statements, {entity} entities");
    Ok(())
}
