//! The arithmetic of Python scoring scripts that must be reproduced to the last
//! bit: SciPy's `linear_sum_assignment` (the shortest augmenting path algorithm
//! of Crouse, 2016, as `scipy/optimize/rectangular_lsap/rectangular_lsap.cpp`
//! implements it, so that among equally good assignments the same one is
//! chosen), and NumPy's pairwise summation of a float array (`np.sum`), whose
//! rounding differs from a left-to-right sum from eight values on.

/// The assignment `linear_sum_assignment(cost, maximize)` returns for a
/// `rows` × `cols` matrix in row-major order: (row, column) pairs, one per row
/// or per column (whichever are fewer), ordered by row. Empty for an empty
/// matrix; a matrix with NaN or -inf entries (SciPy raises) gives no pairs.
pub fn linear_sum_assignment(
    rows: usize,
    cols: usize,
    cost: &[f64],
    maximize: bool,
) -> Vec<(usize, usize)> {
    if rows == 0 || cols == 0 || cost.len() != rows * cols {
        return Vec::new();
    }
    // a tall matrix is transposed, as SciPy does
    let transpose = cols < rows;
    let (nr, nc) = if transpose {
        (cols, rows)
    } else {
        (rows, cols)
    };
    let mut c = vec![0.0; nr * nc];
    for i in 0..rows {
        for j in 0..cols {
            let v = cost[i * cols + j];
            let v = if maximize { -v } else { v };
            if transpose {
                c[j * rows + i] = v;
            } else {
                c[i * nc + j] = v;
            }
        }
    }
    if c.iter().any(|v| v.is_nan() || *v == f64::NEG_INFINITY) {
        return Vec::new();
    }
    let Some(col4row) = solve(nr, nc, &c) else {
        return Vec::new();
    };
    let mut pairs: Vec<(usize, usize)> = if transpose {
        // SciPy orders the pairs by the original row (argsort of col4row)
        col4row.iter().enumerate().map(|(j, &i)| (i, j)).collect()
    } else {
        col4row.iter().enumerate().map(|(i, &j)| (i, j)).collect()
    };
    pairs.sort_unstable();
    pairs
}

/// Crouse's algorithm on an `nr` × `nc` cost matrix with `nr <= nc`: the column
/// of every row, or `None` when the matrix is infeasible.
fn solve(nr: usize, nc: usize, cost: &[f64]) -> Option<Vec<usize>> {
    const FREE: usize = usize::MAX;
    let mut u = vec![0.0; nr];
    let mut v = vec![0.0; nc];
    let mut shortest = vec![f64::INFINITY; nc];
    let mut path = vec![FREE; nc];
    let mut col4row = vec![FREE; nr];
    let mut row4col = vec![FREE; nc];
    let mut sr = vec![false; nr];
    let mut sc = vec![false; nc];
    let mut remaining = vec![0usize; nc];
    for cur_row in 0..nr {
        // the shortest augmenting path from cur_row
        let mut min_val = 0.0;
        let mut num_remaining = nc;
        for (it, r) in remaining.iter_mut().enumerate() {
            // filled in reverse, so that a constant matrix gives the identity
            *r = nc - it - 1;
        }
        sr.fill(false);
        sc.fill(false);
        shortest.fill(f64::INFINITY);
        let mut sink = FREE;
        let mut i = cur_row;
        while sink == FREE {
            let mut index = FREE;
            let mut lowest = f64::INFINITY;
            sr[i] = true;
            for (it, &j) in remaining[..num_remaining].iter().enumerate() {
                let r = min_val + cost[i * nc + j] - u[i] - v[j];
                if r < shortest[j] {
                    path[j] = i;
                    shortest[j] = r;
                }
                // among equal costs, prefer a column that ends the path
                if shortest[j] < lowest || (shortest[j] == lowest && row4col[j] == FREE) {
                    lowest = shortest[j];
                    index = it;
                }
            }
            min_val = lowest;
            if min_val == f64::INFINITY || index == FREE {
                return None;
            }
            let j = remaining[index];
            if row4col[j] == FREE {
                sink = j;
            } else {
                i = row4col[j];
            }
            sc[j] = true;
            num_remaining -= 1;
            remaining[index] = remaining[num_remaining];
        }
        // the dual variables
        u[cur_row] += min_val;
        for r in 0..nr {
            if sr[r] && r != cur_row {
                u[r] += min_val - shortest[col4row[r]];
            }
        }
        for (j, vj) in v.iter_mut().enumerate() {
            if sc[j] {
                *vj -= min_val - shortest[j];
            }
        }
        // augment the previous solution along the path
        let mut j = sink;
        loop {
            let r = path[j];
            row4col[j] = r;
            std::mem::swap(&mut col4row[r], &mut j);
            if r == cur_row {
                break;
            }
        }
    }
    Some(col4row)
}

/// `np.sum` of a float64 (or float32) array: NumPy's pairwise summation
/// (blocks of 128 summed with eight accumulators, halves of larger arrays
/// summed apart), in the array's own type as NumPy sums it.
pub fn numpy_sum<T>(values: &[T]) -> T
where
    T: Copy + Default + std::ops::Add<Output = T> + std::ops::AddAssign,
{
    const BLOCK: usize = 128;
    let n = values.len();
    if n < 8 {
        let mut res = T::default();
        for v in values {
            res += *v;
        }
        res
    } else if n <= BLOCK {
        let mut r = [T::default(); 8];
        r.copy_from_slice(&values[..8]);
        let mut i = 8;
        while i < n - (n % 8) {
            for (k, rk) in r.iter_mut().enumerate() {
                *rk += values[i + k];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for v in &values[i..] {
            res += *v;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        numpy_sum(&values[..n2]) + numpy_sum(&values[n2..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assigns_as_scipy_does() {
        // scipy.optimize.linear_sum_assignment([[4,1,3],[2,0,5],[3,2,2]])
        // -> (array([0, 1, 2]), array([1, 0, 2])), cost 5
        let cost = [4.0, 1.0, 3.0, 2.0, 0.0, 5.0, 3.0, 2.0, 2.0];
        assert_eq!(
            linear_sum_assignment(3, 3, &cost, false),
            [(0, 1), (1, 0), (2, 2)]
        );
        // a constant matrix gives the identity (SciPy #11602)
        assert_eq!(
            linear_sum_assignment(2, 2, &[1.0; 4], true),
            [(0, 0), (1, 1)]
        );
        // a tall matrix: one pair per column, ordered by row
        let tall = [0.0, 1.0, 1.0, 0.0, 0.5, 0.5];
        assert_eq!(linear_sum_assignment(3, 2, &tall, true), [(0, 1), (1, 0)]);
        assert!(linear_sum_assignment(0, 3, &[], true).is_empty());
    }

    #[test]
    fn sums_as_numpy_does() {
        assert_eq!(numpy_sum::<f64>(&[]), 0.0);
        assert_eq!(numpy_sum(&[0.1, 0.2, 0.3]), 0.1 + 0.2 + 0.3);
        // eight accumulators from eight values on: not a left-to-right sum
        let v: Vec<f64> = (1..=9).map(|i| 1.0 / f64::from(i)).collect();
        let expected = ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7])) + v[8];
        assert_eq!(numpy_sum(&v), expected);
        assert_eq!(numpy_sum(&vec![0.1; 300]), {
            let half = |n: usize| {
                let mut r = [0.1; 8];
                for _ in 1..n / 8 {
                    for x in &mut r {
                        *x += 0.1;
                    }
                }
                ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
            };
            // 300 -> 144 + 156 -> (72 + 72) + (72 + 84)
            let h72 = half(72);
            let mut h84 = half(80);
            for _ in 0..4 {
                h84 += 0.1;
            }
            (h72 + h72) + (h72 + h84)
        });
    }
}
