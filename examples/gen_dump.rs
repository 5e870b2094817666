//! Writes a synthetic N-Triples dump of N million statements with realistic IRI
//! shapes (DBpedia resources in several languages, Wikidata entities, Wikipedia
//! articles, Freebase ids, GND) and a heavy-tailed class-size distribution (most
//! classes of 2–4 IRIs, a few of thousands), plus labels and types, for benchmarks.
//!
//! `cargo run --release --example gen_dump -- OUT.nt MILLIONS [SEED]`

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

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let out = args.next().unwrap_or_else(|| "synthetic.nt".into());
    let millions: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(42);
    let target = (millions * 1_000_000.0) as u64;
    let mut rng = Rng(qajudge::rng::SplitMix64(seed));
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&out)?);
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
