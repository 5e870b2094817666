//! Parquet tables exchanged with a distributed closure (Apache Spark): writing
//! tables of text columns row group by row group, and reading text and 64-bit
//! integer columns back from a file or from a directory of part files, as Spark
//! writes them (required or nullable columns, any codec Spark uses by default:
//! uncompressed, Snappy, Zstandard). The only module that names the `parquet` crate.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parquet::basic::{Compression, ZstdLevel};
use parquet::column::reader::ColumnReader;
use parquet::data_type::{ByteArray, ByteArrayType};
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

/// Rows per row group written.
const ROW_GROUP: usize = 1 << 20;

/// An error of a Parquet table, naming the file.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct TableError {
    /// The file or directory.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// Why one column chunk of a table cannot be read.
#[derive(Debug, thiserror::Error)]
enum ColumnError {
    /// The Parquet reader failed.
    #[error("{0}")]
    Read(parquet::errors::ParquetError),
    /// The column's physical type is not one the exchange format uses.
    #[error("the column is neither text nor an integer")]
    Kind,
    /// Some cells are null.
    #[error("{values} of {rows} rows have a value; null cells are not allowed")]
    Nulls {
        /// Cells with a value.
        values: usize,
        /// Rows in the chunk.
        rows: usize,
    },
}

fn table_err(path: &Path, e: impl std::fmt::Display) -> TableError {
    TableError {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// A text column of a table to write.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    /// Its name.
    pub name: &'static str,
    /// Whether a row may leave it empty (null).
    pub nullable: bool,
}

/// Writes a table of text columns to one Parquet file, Zstandard-compressed.
pub struct TableWriter {
    path: PathBuf,
    writer: SerializedFileWriter<BufWriter<File>>,
    columns: Vec<Column>,
    /// The values of the row group being gathered, per column.
    values: Vec<Vec<ByteArray>>,
    /// Definition levels of the nullable columns (1 present, 0 null).
    levels: Vec<Vec<i16>>,
    rows_in_group: usize,
    rows: u64,
}

impl TableWriter {
    /// Creates `path` holding the table `name` with these columns.
    pub fn create(path: &Path, name: &str, columns: &[Column]) -> Result<TableWriter, TableError> {
        let fields: String = columns
            .iter()
            .map(|c| {
                format!(
                    "{} binary {} (STRING); ",
                    if c.nullable { "optional" } else { "required" },
                    c.name
                )
            })
            .collect();
        let schema = parse_message_type(&format!("message {name} {{ {fields}}}"))
            .map_err(|e| table_err(path, e))?;
        let level = ZstdLevel::try_new(1).map_err(|e| table_err(path, e))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(level))
            .set_max_row_group_row_count(Some(ROW_GROUP))
            .set_created_by(format!("qajudge {}", env!("CARGO_PKG_VERSION")))
            .build();
        let file = File::create(path).map_err(|e| table_err(path, e))?;
        let writer = SerializedFileWriter::new(
            BufWriter::with_capacity(1 << 20, file),
            Arc::new(schema),
            Arc::new(props),
        )
        .map_err(|e| table_err(path, e))?;
        Ok(TableWriter {
            path: path.to_path_buf(),
            writer,
            columns: columns.to_vec(),
            values: vec![Vec::new(); columns.len()],
            levels: vec![Vec::new(); columns.len()],
            rows_in_group: 0,
            rows: 0,
        })
    }

    /// Adds a row: one cell per column, `None` only in nullable columns.
    pub fn push(&mut self, row: &[Option<&str>]) -> Result<(), TableError> {
        if row.len() != self.columns.len() {
            return Err(table_err(
                &self.path,
                format!(
                    "a row of {} cells for {} columns",
                    row.len(),
                    self.columns.len()
                ),
            ));
        }
        if let Some((_, c)) = row
            .iter()
            .zip(&self.columns)
            .find(|(cell, c)| cell.is_none() && !c.nullable)
        {
            return Err(table_err(
                &self.path,
                format!("column {} cannot be empty", c.name),
            ));
        }
        for (i, cell) in row.iter().enumerate() {
            if let Some(text) = cell {
                self.values[i].push(ByteArray::from(text.as_bytes().to_vec()));
            }
            if self.columns[i].nullable {
                self.levels[i].push(i16::from(cell.is_some()));
            }
        }
        self.rows_in_group += 1;
        self.rows += 1;
        if self.rows_in_group == ROW_GROUP {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), TableError> {
        if self.rows_in_group == 0 {
            return Ok(());
        }
        let path = self.path.clone();
        let mut group = self
            .writer
            .next_row_group()
            .map_err(|e| table_err(&path, e))?;
        let mut i = 0;
        while let Some(mut column) = group.next_column().map_err(|e| table_err(&path, e))? {
            let levels = self.columns[i]
                .nullable
                .then_some(self.levels[i].as_slice());
            column
                .typed::<ByteArrayType>()
                .write_batch(&self.values[i], levels, None)
                .map_err(|e| table_err(&path, e))?;
            column.close().map_err(|e| table_err(&path, e))?;
            self.values[i].clear();
            self.levels[i].clear();
            i += 1;
        }
        group.close().map_err(|e| table_err(&path, e))?;
        self.rows_in_group = 0;
        Ok(())
    }

    /// Writes what is left and the file's footer; returns the number of rows.
    pub fn finish(mut self) -> Result<u64, TableError> {
        self.flush()?;
        let path = self.path.clone();
        let mut inner = self.writer.into_inner().map_err(|e| table_err(&path, e))?;
        std::io::Write::flush(&mut inner).map_err(|e| table_err(&path, e))?;
        inner
            .into_inner()
            .map_err(|e| table_err(&path, e.error()))?
            .sync_all()
            .map_err(|e| table_err(&path, e))?;
        Ok(self.rows)
    }
}

/// A cell read back.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// A text (or binary) value.
    Text(ByteArray),
    /// A 64-bit (or 32-bit) integer.
    Int(i64),
}

impl Cell {
    /// The cell as UTF-8 text.
    pub fn text(&self) -> Option<&str> {
        match self {
            Cell::Text(b) => std::str::from_utf8(b.data()).ok(),
            Cell::Int(_) => None,
        }
    }

    /// The cell as an integer.
    pub fn int(&self) -> Option<i64> {
        match self {
            Cell::Int(i) => Some(*i),
            Cell::Text(_) => None,
        }
    }
}

/// The Parquet files of `path`: the file itself, or the `.parquet` files of a
/// directory (Spark's `part-*` files), sorted by name.
pub fn table_files(path: &Path) -> Result<Vec<PathBuf>, TableError> {
    if !path.is_dir() {
        if path.exists() {
            return Ok(vec![path.to_path_buf()]);
        }
        return Err(table_err(path, "no such file or directory"));
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| table_err(path, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(table_err(path, "the directory holds no .parquet file"));
    }
    Ok(files)
}

/// Reads the named columns of every row of the table at `path` (a file or a
/// directory of part files), handing each row's cells to `on_row` in the order
/// of `columns`. A null cell, a missing column or a column of another type is
/// an error naming the file.
pub fn read_table(
    path: &Path,
    columns: &[&str],
    on_row: &mut dyn FnMut(&[Cell]) -> Result<(), TableError>,
) -> Result<u64, TableError> {
    let mut rows = 0u64;
    for file in table_files(path)? {
        let reader = SerializedFileReader::new(File::open(&file).map_err(|e| table_err(&file, e))?)
            .map_err(|e| table_err(&file, e))?;
        let schema = reader.metadata().file_metadata().schema_descr_ptr();
        let mut index = Vec::with_capacity(columns.len());
        for name in columns {
            let found =
                (0..schema.num_columns()).find(|&i| schema.column(i).path().string() == *name);
            let Some(i) = found else {
                return Err(table_err(
                    &file,
                    format!("no column {name:?}; the table needs the columns {columns:?}"),
                ));
            };
            index.push(i);
        }
        for g in 0..reader.metadata().num_row_groups() {
            let group = reader.get_row_group(g).map_err(|e| table_err(&file, e))?;
            let n = usize::try_from(group.metadata().num_rows()).unwrap_or(0);
            let mut cells: Vec<Vec<Cell>> = Vec::with_capacity(columns.len());
            for (&i, name) in index.iter().zip(columns) {
                let column = group
                    .get_column_reader(i)
                    .map_err(|e| table_err(&file, e))?;
                let nullable = schema.column(i).max_def_level() > 0;
                cells.push(read_column(column, n, nullable).map_err(|m| {
                    table_err(&file, format!("column {name:?}, row group {g}: {m}"))
                })?);
            }
            let mut row = Vec::with_capacity(columns.len());
            for r in 0..n {
                row.clear();
                row.extend(
                    cells
                        .iter_mut()
                        .map(|c| std::mem::replace(&mut c[r], Cell::Int(0))),
                );
                on_row(&row)?;
            }
            rows += n as u64;
        }
    }
    Ok(rows)
}

/// The `n` values of one column chunk.
fn read_column(column: ColumnReader, n: usize, nullable: bool) -> Result<Vec<Cell>, ColumnError> {
    let mut levels = Vec::new();
    fn def(levels: &mut Vec<i16>, nullable: bool) -> Option<&mut Vec<i16>> {
        nullable.then_some(levels)
    }
    let (cells, values) = match column {
        ColumnReader::ByteArrayColumnReader(mut r) => {
            let mut values = Vec::with_capacity(n);
            r.read_records(n, def(&mut levels, nullable), None, &mut values)
                .map_err(ColumnError::Read)?;
            let len = values.len();
            (values.into_iter().map(Cell::Text).collect::<Vec<_>>(), len)
        }
        ColumnReader::Int64ColumnReader(mut r) => {
            let mut values = Vec::with_capacity(n);
            r.read_records(n, def(&mut levels, nullable), None, &mut values)
                .map_err(ColumnError::Read)?;
            let len = values.len();
            (values.into_iter().map(Cell::Int).collect(), len)
        }
        ColumnReader::Int32ColumnReader(mut r) => {
            let mut values = Vec::with_capacity(n);
            r.read_records(n, def(&mut levels, nullable), None, &mut values)
                .map_err(ColumnError::Read)?;
            let len = values.len();
            (
                values
                    .into_iter()
                    .map(|v| Cell::Int(i64::from(v)))
                    .collect(),
                len,
            )
        }
        _ => return Err(ColumnError::Kind),
    };
    if values != n {
        return Err(ColumnError::Nulls { values, rows: n });
    }
    Ok(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_reads_back_with_nulls_refused() {
        let dir = std::env::temp_dir().join(format!("qajudge-exchange-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.parquet");
        let columns = [
            Column {
                name: "a",
                nullable: false,
            },
            Column {
                name: "b",
                nullable: true,
            },
        ];
        let mut w = TableWriter::create(&path, "t", &columns).unwrap();
        w.push(&[Some("x"), Some("y")]).unwrap();
        w.push(&[Some("é"), None]).unwrap();
        assert!(w.push(&[None, Some("z")]).is_err());
        w.push(&[Some("z"), Some("w")]).unwrap();
        assert_eq!(w.finish().unwrap(), 3);
        let mut seen = Vec::new();
        let n = read_table(&path, &["a"], &mut |row| {
            seen.push(row[0].text().unwrap().to_string());
            Ok(())
        })
        .unwrap();
        assert_eq!(n, 3);
        assert_eq!(seen, ["x", "é", "z"]);
        // the null of a nullable column is refused when read as a value
        let err = read_table(&path, &["b", "a"], &mut |_| Ok(())).unwrap_err();
        assert!(err.to_string().contains("2 of 3 rows"), "{err}");
        let err = read_table(&path, &["c"], &mut |_| Ok(())).unwrap_err();
        assert!(err.to_string().contains("no column \"c\""), "{err}");
        // a directory is read as its part files
        assert_eq!(read_table(&dir, &["a"], &mut |_| Ok(())).unwrap(), 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
