//! The sameAs files of an index of the current format damaged byte by byte,
//! past the checksums `meta.json` keeps for small files (a file past 64 MiB
//! has none, so its damage reaches the readers): every byte of each file set
//! to its complement (and to zero in the small files), the table opened mapped and read, and every
//! key and class of the undamaged index looked up. Each is an answer or an
//! error, never a panic (nor a SIGBUS: the lengths are kept). The fuzz target
//! `index` (fuzz/src/lib.rs) writes arbitrary bytes over them the same way.

use std::path::Path;

use qajudge::index::format::{
    IndexMeta, KeyRecord, FORMAT_VERSION, KEY_RECORD, SAMEAS_CLASSES, SAMEAS_DIRECTORY,
    SAMEAS_KEYS, SAMEAS_MEMBERS,
};
use qajudge::index::sameas::SameAsTable;

use crate::serve::tmp;

#[test]
fn every_damaged_byte_of_the_sameas_files_is_an_answer_or_an_error() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/index-v{FORMAT_VERSION}"));
    let dir = tmp("damaged-tables");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a directory");
    let files = [
        SAMEAS_KEYS[0],
        SAMEAS_KEYS[1],
        SAMEAS_CLASSES,
        SAMEAS_MEMBERS,
        SAMEAS_DIRECTORY,
    ];
    for f in files.iter().chain(&["meta.json"]) {
        std::fs::copy(fixture.join(f), dir.join(f)).expect("the test index");
    }
    let meta: IndexMeta =
        serde_json::from_slice(&std::fs::read(dir.join("meta.json")).expect("meta")).expect("meta");
    let mut keys: Vec<u64> = Vec::new();
    for f in SAMEAS_KEYS {
        let b = std::fs::read(fixture.join(f)).expect("keys");
        keys.extend(b.chunks_exact(KEY_RECORD).map(KeyRecord::key_of));
    }
    assert!(keys.len() >= 20, "{}", keys.len());
    keys.extend([0, 1, u64::MAX, 1 << 63]);
    let classes = (std::fs::metadata(fixture.join(SAMEAS_CLASSES))
        .expect("classes")
        .len()
        / 8) as u32;
    let (mut variants, mut refused, mut errors, mut answers) = (0, 0, 0, 0);
    for name in files {
        let original = std::fs::read(fixture.join(name)).expect("the file");
        for at in 0..original.len() {
            // zero too in the small files (the directory, the class offsets,
            // the second key file): the complement alone in the large ones
            let zero = original.len() < 256;
            for value in [!original[at], 0] {
                if value == original[at] || (value == 0 && !zero) {
                    continue;
                }
                let mut damaged = original.clone();
                damaged[at] = value;
                std::fs::write(dir.join(name), &damaged).expect("written");
                variants += 1;
                for table in [
                    SameAsTable::open_mapped(&dir, &meta.lengths),
                    SameAsTable::open(&dir),
                ] {
                    let Ok(table) = table else {
                        refused += 1;
                        continue;
                    };
                    let mut count = |ok: bool| if ok { answers += 1 } else { errors += 1 };
                    for &key in &keys {
                        count(table.record(key).is_ok());
                        if let Ok(Some((record, _))) = table.lookup(key, 3) {
                            count(table.members_of(&record, 2).is_ok());
                        }
                    }
                    for class in 0..classes + 2 {
                        count(table.members(class, 5).is_ok());
                    }
                }
            }
        }
        std::fs::write(dir.join(name), &original).expect("restored");
    }
    eprintln!(
        "{variants} damaged files: {refused} refused at open, {errors} errors, {answers} answers"
    );
    assert!(variants > 1_700 && refused > 0 && errors > 0 && answers > 0);
    let _ = std::fs::remove_dir_all(&dir);
}
