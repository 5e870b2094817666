//! Measures the owl:sameAs closure of an index held in RocksDB table layouts
//! against format 5's own key table, on the same closure: it reads the key
//! table of an index built by `scripts/bench-index.sh` (format 5), writes the
//! closure again in one layout, then times lookups of IRIs the process has not
//! asked before (unseen), of 10,000 IRIs asked again and again (known) and of
//! IRIs the index does not hold (absent), on one thread. One layout a process,
//! so that its peak memory is its own; `scripts/bench-closure.sh` runs them all
//! and prints the table.
//!
//! Layouts (column families of a RocksDB store, each written as one sorted
//! table file and ingested):
//! - `f5`: format 5's files, rewritten (the baseline), read by the index's own
//!   reader (`index::sameas::SameAsTable`);
//! - `bb`, `bb-mmap`: block-based tables (4 KiB blocks, bloom filter, hash
//!   index in each data block), read through a block cache, or memory-mapped;
//! - `plain`, `plain-mmap`: PlainTable (a hash index over the whole 8-byte key,
//!   bloom filter), read with positioned reads or memory-mapped;
//! - `cuckoo`: CuckooTable for the keys (fixed 8-byte values: class id and
//!   size; one or two probes into a memory-mapped file), the members in a
//!   PlainTable by class id (CuckooTable holds only values of one length).
//!
//! In `bb*` and `plain*` the value of a key is its class id and size and, when
//! the class's members take at most `INLINE` bytes (environment, default 256;
//! 0 for none), the members themselves, so that most lookups read one value;
//! larger classes are read by class id from a second column family.
//!
//! `REUSE=1` reads a layout written by an earlier run again (to profile its
//! lookups); `BLOOM` sets PlainTable's bloom bits a key (default 10, 0 for
//! none). The figures and the verdict: docs/benchmarks-closure.md.
//!
//! `cargo run --release --example bench_closure -- SRC_INDEX WORK LAYOUT`

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use qajudge::index::format::{
    decode_list, KeyRecord, KEY_RECORD, SAMEAS_CLASSES, SAMEAS_DIRECTORY, SAMEAS_KEYS,
    SAMEAS_MEMBERS,
};
use qajudge::index::hash::iri_key;
use qajudge::index::sameas::SameAsTable;
use qajudge::terms::canonical::canonical_iri;
use rocksdb::{
    Cache, ColumnFamilyDescriptor, CuckooTableOptions, DBPinnableSlice, IngestExternalFileOptions,
    KeyEncodingType, Options, PlainTableFactoryOptions, ReadOptions, SliceTransform, SstFileWriter,
    DB,
};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const CF_KEYS: &str = "closure";
const CF_MEMBERS: &str = "members";
/// Members returned per lookup, as `Index::sameas` is asked by the bench.
const LIMIT: usize = 100;

#[derive(Clone, Copy, PartialEq)]
enum Layout {
    F5,
    Bb { mmap: bool },
    Plain { mmap: bool },
    Cuckoo,
}

impl Layout {
    fn parse(s: &str) -> Layout {
        match s {
            "f5" => Layout::F5,
            "bb" => Layout::Bb { mmap: false },
            "bb-mmap" => Layout::Bb { mmap: true },
            "plain" => Layout::Plain { mmap: false },
            "plain-mmap" => Layout::Plain { mmap: true },
            "cuckoo" => Layout::Cuckoo,
            other => panic!("unknown layout {other}: f5, bb, bb-mmap, plain, plain-mmap, cuckoo"),
        }
    }

    fn mmap(self) -> bool {
        matches!(
            self,
            Layout::Bb { mmap: true } | Layout::Plain { mmap: true } | Layout::Cuckoo
        )
    }

    /// Whether small classes' members are held in the key's value.
    fn inlines(self) -> bool {
        matches!(self, Layout::Bb { .. } | Layout::Plain { .. })
    }
}

fn plain(key_len: u32) -> Options {
    let mut opts = Options::default();
    // the whole key is the prefix: the hash index finds it directly
    opts.set_prefix_extractor(SliceTransform::create_fixed_prefix(key_len as usize));
    opts.set_plain_table_factory(&PlainTableFactoryOptions {
        user_key_length: key_len,
        // BLOOM (environment): bits a key of its bloom filter, 0 for none
        bloom_bits_per_key: std::env::var("BLOOM")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(10),
        hash_table_ratio: 0.75,
        index_sparseness: 16,
        huge_page_tlb_size: 0,
        encoding_type: KeyEncodingType::Plain,
        full_scan_mode: false,
        store_index_in_file: true,
    });
    opts
}

fn cuckoo() -> Options {
    let mut opts = Options::default();
    let mut table = CuckooTableOptions::default();
    table.set_hash_ratio(0.9);
    table.set_max_search_depth(100);
    table.set_cuckoo_block_size(5);
    table.set_identity_as_first_hash(false);
    table.set_use_module_hash(true);
    opts.set_cuckoo_table_factory(&table);
    opts
}

/// The options of the key and members column families of a layout.
fn cf_options(layout: Layout, cache: &Cache) -> [Options; 2] {
    match layout {
        Layout::F5 => unreachable!("format 5 is no store"),
        // the index's own block-based options: `bb` measures what it reads with
        Layout::Bb { .. } => [
            qajudge::index::kv::cf_options(cache),
            qajudge::index::kv::cf_options(cache),
        ],
        Layout::Plain { .. } => [plain(8), plain(4)],
        Layout::Cuckoo => [cuckoo(), plain(4)],
    }
}

fn db_options(layout: Layout) -> Options {
    let mut opts = Options::default();
    opts.set_allow_mmap_reads(layout.mmap());
    opts
}

/// The closure as format 5 holds it, read sequentially.
struct Source {
    dir: PathBuf,
}

impl Source {
    /// Calls `f` with each class's id and `\n`-separated members, in id order.
    fn classes(&self, mut f: impl FnMut(u32, &[u8])) {
        let mut r = BufReader::with_capacity(
            1 << 20,
            File::open(self.dir.join(SAMEAS_MEMBERS)).expect("members"),
        );
        let mut len = [0u8; 4];
        let mut buf = Vec::new();
        let mut id = 0u32;
        while r.read_exact(&mut len).is_ok() {
            buf.resize(u32::from_le_bytes(len) as usize, 0);
            r.read_exact(&mut buf).expect("class");
            f(id, &buf);
            id += 1;
        }
    }

    /// Calls `f` with each record in increasing key order.
    fn keys(&self, mut f: impl FnMut(&KeyRecord)) {
        for name in SAMEAS_KEYS {
            let mut r =
                BufReader::with_capacity(1 << 20, File::open(self.dir.join(name)).expect("keys"));
            let mut rec = [0u8; KEY_RECORD];
            while r.read_exact(&mut rec).is_ok() {
                f(&KeyRecord::decode(&rec).expect("record"));
            }
        }
    }
}

/// Format 5's files written again from the source (as the indexer's writer
/// does: sequential writes, synced).
fn write_f5(src: &Source, out: &Path) {
    let create =
        |n: &str| BufWriter::with_capacity(1 << 20, File::create(out.join(n)).expect("create"));
    let mut members = create(SAMEAS_MEMBERS);
    let mut at = Vec::new();
    let mut len = 0u64;
    src.classes(|_, m| {
        at.push(len);
        members
            .write_all(&(m.len() as u32).to_le_bytes())
            .expect("write");
        members.write_all(m).expect("write");
        len += 4 + m.len() as u64;
    });
    let mut keys = [create(SAMEAS_KEYS[0]), create(SAMEAS_KEYS[1])];
    src.keys(|r| {
        let mut r = *r;
        r.members_at = at[r.class as usize];
        keys[(r.key >> 63) as usize]
            .write_all(&r.encode())
            .expect("write");
    });
    let mut classes = create(SAMEAS_CLASSES);
    for a in at.iter().chain([&len]) {
        classes.write_all(&a.to_le_bytes()).expect("write");
    }
    std::fs::copy(src.dir.join(SAMEAS_DIRECTORY), out.join(SAMEAS_DIRECTORY)).expect("dir");
    let [k0, k1] = keys;
    for w in [members, k0, k1, classes] {
        w.into_inner().expect("flush").sync_all().expect("sync");
    }
}

/// Where the closure's pairs go: sorted table files ingested at once (the
/// indexer's way, for block-based tables), or a store's memtables flushed
/// (PlainTable and CuckooTable files cannot be ingested: RocksDB refuses them).
enum Sink<'a> {
    Files {
        writers: [SstFileWriter<'a>; 2],
        files: [PathBuf; 2],
        written: [bool; 2],
    },
    Memtables {
        db: DB,
    },
}

fn store_options(layout: Layout) -> Options {
    let mut opts = db_options(layout);
    opts.create_if_missing(true);
    opts.create_missing_column_families(true);
    opts
}

fn open_store(layout: Layout, path: &Path, cf: [Options; 2]) -> DB {
    let [k, m] = cf;
    DB::open_cf_descriptors(
        &store_options(layout),
        path,
        [
            ColumnFamilyDescriptor::new(CF_KEYS, k),
            ColumnFamilyDescriptor::new(CF_MEMBERS, m),
        ],
    )
    .expect("open store")
}

impl Sink<'_> {
    fn put(&mut self, cf: usize, key: &[u8], value: &[u8]) {
        match self {
            Sink::Files {
                writers, written, ..
            } => {
                writers[cf].put(key, value).expect("put");
                written[cf] = true;
            }
            Sink::Memtables { db } => {
                let mut w = rocksdb::WriteOptions::default();
                w.disable_wal(true);
                let h = db.cf_handle([CF_KEYS, CF_MEMBERS][cf]).expect("cf");
                db.put_cf_opt(h, key, value, &w).expect("put");
            }
        }
    }
}

/// The closure written into a RocksDB store of the layout.
fn write_store(src: &Source, out: &Path, layout: Layout, inline: usize) {
    let cache = Cache::new_lru_cache(256 << 20);
    let opts = cf_options(layout, &cache);
    let inline = if layout.inlines() { inline } else { 0 };
    let kv = out.join("kv");
    let mut sink = if matches!(layout, Layout::Bb { .. }) {
        let files = [out.join("keys.sst"), out.join("members.sst")];
        let mut writers = [
            SstFileWriter::create(&opts[0]),
            SstFileWriter::create(&opts[1]),
        ];
        for (w, f) in writers.iter_mut().zip(&files) {
            w.open(f).expect("open sst");
        }
        Sink::Files {
            writers,
            files,
            written: [false; 2],
        }
    } else {
        let memtable = |mut o: Options| {
            o.set_memtable_factory(rocksdb::MemtableFactory::Vector);
            o.set_write_buffer_size(512 << 20);
            o.set_max_write_buffer_number(2);
            o.set_disable_auto_compactions(true);
            o.set_level_zero_slowdown_writes_trigger(1 << 20);
            o.set_level_zero_stop_writes_trigger(1 << 20);
            o
        };
        let [k, m] = cf_options(layout, &cache);
        Sink::Memtables {
            db: open_store(layout, &kv, [memtable(k), memtable(m)]),
        }
    };
    // small classes' members, by class id, for the keys' values
    let mut small: Vec<u8> = Vec::new();
    let mut small_at: Vec<(u64, u32)> = Vec::new();
    src.classes(|id, m| {
        if m.len() <= inline {
            small_at.push((small.len() as u64, m.len() as u32));
            small.extend_from_slice(m);
        } else {
            small_at.push((u64::MAX, 0));
            sink.put(1, &id.to_be_bytes(), m);
        }
    });
    let mut value = Vec::new();
    src.keys(|r| {
        value.clear();
        value.extend_from_slice(&r.class.to_le_bytes());
        value.extend_from_slice(&r.size.to_le_bytes());
        let (at, len) = small_at[r.class as usize];
        if at != u64::MAX && inline > 0 {
            value.extend_from_slice(&small[at as usize..at as usize + len as usize]);
        }
        sink.put(0, &r.key.to_be_bytes(), &value);
    });
    drop(small);
    match sink {
        Sink::Files {
            writers,
            files,
            written,
        } => {
            let db = open_store(layout, &kv, cf_options(layout, &cache));
            let mut ingest = IngestExternalFileOptions::default();
            ingest.set_move_files(true);
            for (((mut w, f), done), cf) in writers
                .into_iter()
                .zip(files)
                .zip(written)
                .zip([CF_KEYS, CF_MEMBERS])
            {
                if done {
                    w.finish().expect("finish");
                    db.ingest_external_file_cf_opts(
                        db.cf_handle(cf).expect("cf"),
                        &ingest,
                        vec![f],
                    )
                    .expect("ingest");
                }
            }
            db.flush_wal(true).expect("sync");
        }
        Sink::Memtables { db } => {
            for cf in [CF_KEYS, CF_MEMBERS] {
                db.flush_cf(db.cf_handle(cf).expect("cf")).expect("flush");
            }
        }
    }
}

/// One closure, opened for lookups.
enum Reader {
    F5(SameAsTable),
    Store {
        db: DB,
        read: ReadOptions,
        inline: bool,
    },
}

impl Reader {
    fn open(dir: &Path, layout: Layout) -> Reader {
        if layout == Layout::F5 {
            return Reader::F5(SameAsTable::open(dir).expect("open f5"));
        }
        let cache = Cache::new_lru_cache(256 << 20);
        let [key_opts, member_opts] = cf_options(layout, &cache);
        let db = DB::open_cf_descriptors_read_only(
            &db_options(layout),
            dir.join("kv"),
            [
                ColumnFamilyDescriptor::new(CF_KEYS, key_opts),
                ColumnFamilyDescriptor::new(CF_MEMBERS, member_opts),
            ],
            false,
        )
        .expect("open store");
        let mut read = ReadOptions::default();
        read.set_verify_checksums(true);
        Reader::Store {
            db,
            read,
            inline: layout.inlines(),
        }
    }

    /// The class size and first members of a key (class of one: `None`).
    fn lookup(&self, key: u64) -> Option<(u32, Vec<String>)> {
        match self {
            Reader::F5(t) => {
                let r = t.record(key).expect("read")?;
                Some((r.size, t.members_of(&r, LIMIT).expect("members")))
            }
            Reader::Store { db, read, inline } => {
                let keys = db.cf_handle(CF_KEYS).expect("cf");
                let v: DBPinnableSlice<'_> = db
                    .get_pinned_cf_opt(keys, key.to_be_bytes(), read)
                    .expect("get")?;
                let class = u32::from_le_bytes([v[0], v[1], v[2], v[3]]);
                let size = u32::from_le_bytes([v[4], v[5], v[6], v[7]]);
                if *inline && v.len() > 8 {
                    return Some((size, decode_list(head(&v[8..], LIMIT), LIMIT)));
                }
                let members = db.cf_handle(CF_MEMBERS).expect("cf");
                let m = db
                    .get_pinned_cf_opt(members, class.to_be_bytes(), read)
                    .expect("get")
                    .expect("members of a class");
                Some((size, decode_list(head(&m, LIMIT), LIMIT)))
            }
        }
    }
}

/// The first `limit` members of a list (the rest is not decoded).
fn head(list: &[u8], limit: usize) -> &[u8] {
    match memchr::memchr_iter(b'\n', list).nth(limit.saturating_sub(1)) {
        Some(end) => &list[..end],
        None => list,
    }
}

/// Lookups a second over `iris` (canonicalised and hashed as `Index::sameas`
/// does), and the number found.
fn rate(reader: &Reader, iris: &[String]) -> (f64, usize) {
    let t = Instant::now();
    let mut found = 0;
    for iri in iris {
        let canonical = canonical_iri(iri);
        let answer = reader.lookup(iri_key(&canonical));
        found += usize::from(answer.is_some());
        std::hint::black_box(answer);
    }
    (iris.len() as f64 / t.elapsed().as_secs_f64(), found)
}

/// Lookups a second over keys hashed before.
fn rate_keys(reader: &Reader, keys: &[u64]) -> f64 {
    let t = Instant::now();
    for &k in keys {
        std::hint::black_box(reader.lookup(k));
    }
    keys.len() as f64 / t.elapsed().as_secs_f64()
}

fn du(dir: &Path) -> u64 {
    let mut total = 0;
    for e in std::fs::read_dir(dir).expect("dir").flatten() {
        let m = e.metadata().expect("meta");
        total += if m.is_dir() { du(&e.path()) } else { m.len() };
    }
    total
}

/// Every file of `dir` read once, into the OS page cache.
fn warm(dir: &Path) {
    for e in std::fs::read_dir(dir).expect("dir").flatten() {
        if e.path().is_dir() {
            warm(&e.path());
        } else {
            std::io::copy(
                &mut File::open(e.path()).expect("file"),
                &mut std::io::sink(),
            )
            .expect("read");
        }
    }
}

fn peak_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, src, work, layout] = &args[..] else {
        eprintln!("usage: bench_closure SRC_INDEX WORK LAYOUT");
        std::process::exit(2);
    };
    let layout_name = layout.as_str();
    let layout = Layout::parse(layout);
    let inline: usize = std::env::var("INLINE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let src = Source {
        dir: PathBuf::from(src),
    };
    let out = Path::new(work).join(layout_name);
    // REUSE=1: the layout written by an earlier run is read again (to profile
    // lookups without the build)
    let reuse = std::env::var_os("REUSE").is_some() && out.exists();
    let mut build = 0.0;
    if !reuse {
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir_all(&out).expect("work dir");
        warm(&src.dir);
        let t = Instant::now();
        match layout {
            Layout::F5 => write_f5(&src, &out),
            _ => write_store(&src, &out, layout, inline),
        }
        build = t.elapsed().as_secs_f64();
    }
    let build_peak = peak_kib();
    let disk = du(&out);
    warm(&out);
    let reader = Reader::open(&out, layout);
    // the IRIs of benches/index.rs: Wikidata entities of gen_dump's shape
    let unseen: Vec<String> = (1..=2_000_000u64)
        .map(|e| format!("http://www.wikidata.org/entity/Q{}", e * 7 + 3))
        .collect();
    let (unseen_rate, found) = rate(&reader, &unseen[..1_000_000]);
    let keys: Vec<u64> = unseen[1_000_000..]
        .iter()
        .map(|i| iri_key(&canonical_iri(i)))
        .collect();
    let unseen_keys_rate = rate_keys(&reader, &keys);
    let t = Instant::now();
    for i in &unseen[..1_000_000] {
        std::hint::black_box(iri_key(&canonical_iri(i)));
    }
    let hash_rate = 1e6 / t.elapsed().as_secs_f64();
    let known: Vec<String> = unseen[..10_000].to_vec();
    let mut known_rate = 0.0;
    for _ in 0..3 {
        known_rate = rate(
            &reader,
            &known
                .iter()
                .cycle()
                .take(300_000)
                .cloned()
                .collect::<Vec<_>>(),
        )
        .0;
    }
    let absent: Vec<String> = (1..=1_000_000u64)
        .map(|e| format!("http://example.org/none/{e}"))
        .collect();
    let (absent_rate, none) = rate(&reader, &absent);
    assert_eq!(none, 0);
    println!(
        "{layout_name:<11} inline {:>4}  unseen {:>7.0} k/s (keys hashed before {:>7.0} k/s; hashing alone {:>6.0} k/s; {found} found)  known {:>7.0} k/s  absent {:>7.0} k/s  build {build:>6.2} s  disk {:>6.1} MB  peak build {:>5} MB, lookups {:>5} MB",
        if layout.inlines() { inline } else { 0 },
        unseen_rate / 1e3,
        unseen_keys_rate / 1e3,
        hash_rate / 1e3,
        known_rate / 1e3,
        absent_rate / 1e3,
        disk as f64 / 1e6,
        build_peak / 1024,
        peak_kib() / 1024,
    );
    let f5_dir = Path::new(work).join("f5");
    if layout != Layout::F5 && f5_dir.exists() {
        paired(&reader, &Reader::open(&f5_dir, Layout::F5), layout_name);
    }
}

/// Unseen and absent lookups of the layout and of format 5 in alternating
/// rounds in this one process (each round over IRIs neither reader was asked
/// before), so that a machine shared with other work slows both alike: the
/// median of the rounds' ratios.
fn paired(layout: &Reader, f5: &Reader, name: &str) {
    const ROUNDS: u64 = 5;
    const PER: u64 = 150_000;
    let iris = |from: u64, shape: &str| -> Vec<String> {
        (from..from + PER)
            .map(|e| match shape {
                "found" => format!("http://www.wikidata.org/entity/Q{}", e * 7 + 3),
                _ => format!("http://example.org/none/{e}"),
            })
            .collect()
    };
    for shape in ["found", "absent"] {
        let mut ratios = Vec::new();
        let mut rates = Vec::new();
        for r in 0..ROUNDS {
            let a = iris(2_000_001 + 2 * r * PER, shape);
            let b = iris(2_000_001 + (2 * r + 1) * PER, shape);
            // which goes first alternates
            let (ours, base) = if r % 2 == 0 {
                let ours = rate(layout, &a).0;
                (ours, rate(f5, &b).0)
            } else {
                let base = rate(f5, &a).0;
                (rate(layout, &b).0, base)
            };
            ratios.push(ours / base);
            rates.push((ours, base));
        }
        let mut sorted = ratios.clone();
        sorted.sort_by(f64::total_cmp);
        println!(
            "  paired {name} vs f5, unseen {shape}: median ratio {:.2} (rounds: {})",
            sorted[sorted.len() / 2],
            rates
                .iter()
                .map(|(o, b)| format!("{:.0}/{:.0} k/s", o / 1e3, b / 1e3))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}
