//! The rewrite of the graph patterns around a query's solutions (`bound`'s
//! cases): a join's two sides, `ORDER BY`, `GROUP BY`, `DISTINCT`, a slice,
//! `MINUS`, `OPTIONAL` and `FILTER`, each counted and bounded as its parent
//! module says.

use super::*;

/// The two sides of a join or union with their ticks, left first.
pub(super) fn both(
    left: GraphPattern,
    right: GraphPattern,
    ticks: &mut Rewrite<'_>,
) -> (Box<GraphPattern>, Box<GraphPattern>) {
    let left = Box::new(bound(left, ticks));
    (left, Box::new(bound(right, ticks)))
}

/// An `ORDER BY` with ticks: its sort keys settled (the store works a key out
/// again for each comparison and keeps none), and the rows it sorts counted.
pub(super) fn ordered(
    inner: GraphPattern,
    expression: Vec<OrderExpression>,
    ticks: &mut Rewrite<'_>,
) -> GraphPattern {
    let inner = bound(inner, ticks);
    let expression = expression
        .into_iter()
        .map(|o| match o {
            // the store works a key out again for each comparison
            // and keeps none
            OrderExpression::Asc(e) => OrderExpression::Asc(ticks.whole(e, false)),
            OrderExpression::Desc(e) => OrderExpression::Desc(ticks.whole(e, false)),
        })
        .collect();
    GraphPattern::OrderBy {
        inner: Box::new(counted(inner, Some(Hold::Sort), ticks)),
        expression,
    }
}

/// A `GROUP BY` (or a query's aggregates) with ticks: its aggregates
/// rewritten, and the rows it groups counted, as held when it holds them.
pub(super) fn grouped(
    inner: GraphPattern,
    variables: Vec<Variable>,
    aggregates: Vec<(Variable, AggregateExpression)>,
    ticks: &mut Rewrite<'_>,
) -> GraphPattern {
    let inner = bound(inner, ticks);
    // one group of accumulators (no GROUP BY) holds no row, unless
    // an aggregate is DISTINCT (it remembers every value it saw)
    let holds = !variables.is_empty()
        || aggregates.iter().any(|(_, a)| match a {
            AggregateExpression::CountSolutions { distinct }
            | AggregateExpression::FunctionCall { distinct, .. } => *distinct,
        });
    let aggregates = aggregates
        .into_iter()
        .map(|(v, a)| (v, sized_aggregate(a, ticks)))
        .collect();
    GraphPattern::Group {
        inner: Box::new(counted(inner, holds.then_some(Hold::Group), ticks)),
        variables,
        aggregates,
    }
}

/// A `DISTINCT` with a tick under it (every row, duplicates too) and one over
/// it (the distinct rows it remembers), projected again to its columns.
pub(super) fn distinct(inner: GraphPattern, ticks: &mut Rewrite<'_>) -> GraphPattern {
    use GraphPattern as P;
    let inner = bound(inner, ticks);
    let projected = match &inner {
        P::Project { variables, .. } => variables.clone(),
        other => self::variables(other),
    };
    // the duplicates it drops still pass a tick
    let inner = Box::new(counted(inner, None, ticks));
    // projected again, so that the ticks' variables are not columns
    P::Project {
        inner: Box::new(counted(
            P::Distinct { inner },
            Some(Hold::Deduplicate),
            ticks,
        )),
        variables: projected,
    }
}

/// A `LIMIT`/`OFFSET` with ticks, and one under it when it skips rows (they
/// still pass).
pub(super) fn sliced(
    inner: GraphPattern,
    start: usize,
    length: Option<usize>,
    ticks: &mut Rewrite<'_>,
) -> GraphPattern {
    let inner = bound(inner, ticks);
    // the rows an OFFSET skips still pass a tick
    let inner = if start > 0 {
        counted(inner, None, ticks)
    } else {
        inner
    };
    GraphPattern::Slice {
        inner: Box::new(inner),
        start,
        length,
    }
}

/// A `MINUS` with a tick on each side: the left's rows (those it removes
/// still pass) and the right's, which the store holds.
pub(super) fn minus(
    left: GraphPattern,
    right: GraphPattern,
    ticks: &mut Rewrite<'_>,
) -> GraphPattern {
    // the rows it removes from the left still pass a tick
    let left = bound(left, ticks);
    let left = Box::new(counted(left, None, ticks));
    let right = bound(right, ticks);
    GraphPattern::Minus {
        left,
        right: Box::new(counted(right, Some(Hold::Minus), ticks)),
    }
}

/// An `OPTIONAL` with a tick on its right side's rows and its filter
/// expression settled.
pub(super) fn optional(
    left: GraphPattern,
    right: GraphPattern,
    expression: Option<Expression>,
    ticks: &mut Rewrite<'_>,
) -> GraphPattern {
    let left = Box::new(bound(left, ticks));
    let right = bound(right, ticks);
    let expression = expression.map(|e| ticks.whole(e, false));
    GraphPattern::LeftJoin {
        left,
        right: Box::new(counted(right, None, ticks)),
        expression,
    }
}

/// A `FILTER` whose expression passes through a tick, which settles the
/// strings the expression built, if it built any.
pub(super) fn filtered(
    expr: Expression,
    inner: GraphPattern,
    ticks: &mut Rewrite<'_>,
) -> GraphPattern {
    let inner = Box::new(bound(inner, ticks));
    let before = ticks.strings();
    let expr = sized(expr, ticks);
    // the filter's tick settles the strings its expression built
    let expr = if ticks.strings() == before {
        tick(ticks.ticks, Tick::Filter { settles: false }, vec![expr])
    } else {
        ticks.settled(expr, Tick::Filter { settles: true })
    };
    GraphPattern::Filter { expr, inner }
}
