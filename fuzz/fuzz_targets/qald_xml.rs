//! AFL++ target: qald_xml files, seeded by `scripts/fuzz.sh` with the real ones of
//! `../shared/data`; see `check_benchmark` for what is checked.

fn main() {
    afl::fuzz!(|data: &[u8]| qajudge_fuzz::check_benchmark(data));
}
