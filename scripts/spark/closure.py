#!/usr/bin/env python3
"""The owl:sameAs closure on Apache Spark, for link sets beyond one machine.

    qajudge index build --export-links DIR dumps/...
    python scripts/spark/closure.py DIR            # or spark-submit ... closure.py DIR
    qajudge index build --from-components DIR --out INDEX

Reads DIR/links.parquet (src, dst: canonical IRIs; src_written, dst_written:
the IRIs as written, null when written canonically), computes the connected
components of the link graph with the large-star / small-star algorithm of
Kiveris, Lattanzi, Mirrokni, Rastogi and Vassilvitskii, "Connected Components
in MapReduce and Beyond" (SoCC 2014), on DataFrames only (no GraphX, which
Spark 4 deprecates), and writes DIR/components/ (iri: every IRI as written,
component: a 64-bit id shared by the IRIs of one component).

Without --master (and outside spark-submit) it runs in local mode on every core.
"""

import argparse
import json
import os
import sys
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F


def oriented(edges):
    """Each undirected edge once, as (larger id, smaller id), without loops."""
    return (
        edges.select(
            F.greatest("src", "dst").alias("src"), F.least("src", "dst").alias("dst")
        )
        .where(F.col("src") != F.col("dst"))
        .distinct()
    )


def large_star(edges):
    """Every node u links each larger neighbour v to m(u), the smallest of u and
    its neighbours."""
    both = edges.union(edges.select(F.col("dst").alias("src"), F.col("src").alias("dst")))
    smallest = both.groupBy("src").agg(F.min("dst").alias("m"))
    smallest = smallest.select("src", F.least("src", "m").alias("m"))
    out = (
        both.where(F.col("dst") > F.col("src"))
        .join(smallest, "src")
        .select(F.col("dst").alias("src"), F.col("m").alias("dst"))
    )
    return oriented(out)


def small_star(edges):
    """Every node u links itself and each smaller neighbour to m, the smallest of
    them. `edges` is oriented: (u, v) with v < u."""
    smallest = edges.groupBy("src").agg(F.min("dst").alias("m"))
    out = edges.join(smallest, "src").select(
        F.col("dst").alias("src"), F.col("m").alias("dst")
    )
    out = out.union(smallest.select("src", F.col("m").alias("dst")))
    return oriented(out)


def changed(before, after):
    """Edges in one set and not the other (both oriented)."""
    return before.exceptAll(after).limit(1).count() + after.exceptAll(before).limit(1).count()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", help="an export directory of `qajudge index build --export-links`")
    parser.add_argument("--master", help="Spark master URL (default: spark-submit's, else local[*])")
    parser.add_argument(
        "--partitions",
        type=int,
        default=None,
        help="shuffle partitions (default: Spark's own; 4 per core in local mode)",
    )
    parser.add_argument(
        "--checkpoint-dir",
        help="reliable checkpoints between rounds (on a cluster: a shared file system); "
        "default: local checkpoints",
    )
    parser.add_argument(
        "--driver-memory",
        help="heap of the driver JVM, which is also the executor in local mode "
        "(default: half of this machine's memory in local mode, else spark-submit's)",
    )
    parser.add_argument("--max-rounds", type=int, default=100)
    args = parser.parse_args()

    links_path = os.path.join(args.dir, "links.parquet")
    manifest_path = os.path.join(args.dir, "manifest.json")
    if not os.path.exists(manifest_path) or not os.path.exists(links_path):
        sys.exit(
            f"error: {args.dir}: no manifest.json and links.parquet; "
            "write them with `qajudge index build --export-links DIR`"
        )
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
    if manifest.get("export_version") != 2:
        sys.exit(f"error: {manifest_path}: export version {manifest.get('export_version')}, this script reads 2")

    builder = SparkSession.builder.appName("qajudge-closure").config(
        "spark.ui.showConsoleProgress", "false"
    )
    if args.master:
        builder = builder.master(args.master)
    elif "SPARK_ENV_LOADED" not in os.environ and "PYSPARK_GATEWAY_PORT" not in os.environ:
        builder = builder.master("local[*]")
        # Spark's default driver heap (1 GB) makes a local run of a few million
        # links spill and collect garbage most of the time
        if args.driver_memory is None:
            total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
            args.driver_memory = f"{max(1, total // 2 // (1 << 30))}g"
    if args.driver_memory:
        builder = builder.config("spark.driver.memory", args.driver_memory)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    master = spark.sparkContext.master
    partitions = args.partitions
    if partitions is None and master.startswith("local"):
        partitions = 4 * spark.sparkContext.defaultParallelism
    if partitions:
        spark.conf.set("spark.sql.shuffle.partitions", str(partitions))
    if args.checkpoint_dir:
        spark.sparkContext.setCheckpointDir(args.checkpoint_dir)

    def checkpoint(df):
        return df.checkpoint(eager=True) if args.checkpoint_dir else df.localCheckpoint(eager=True)

    started = time.time()
    links = spark.read.parquet(links_path)
    # every canonical IRI gets a 64-bit id, fixed once by a checkpoint
    nodes = links.select(F.col("src").alias("iri")).union(links.select(F.col("dst").alias("iri")))
    ids = checkpoint(nodes.distinct().withColumn("id", F.monotonically_increasing_id()))
    src_ids = ids.select(F.col("iri").alias("src"), F.col("id").alias("a"))
    dst_ids = ids.select(F.col("iri").alias("dst"), F.col("id").alias("b"))
    edges = links.join(src_ids, "src").join(dst_ids, "dst").select(
        F.col("a").alias("src"), F.col("b").alias("dst")
    )
    edges = checkpoint(oriented(edges))
    rounds = 0
    while True:
        rounds += 1
        if rounds > args.max_rounds:
            sys.exit(f"error: no convergence after {args.max_rounds} rounds; raise --max-rounds")
        after = checkpoint(small_star(checkpoint(large_star(edges))))
        if changed(edges, after) == 0:
            edges = after
            break
        edges = after
    # a star per component around its smallest id: a node's component is the
    # centre it points to, or itself when it is the centre
    component = (
        ids.join(edges, ids.id == edges.src, "left")
        .select("iri", F.coalesce(F.col("dst"), F.col("id")).alias("component"))
    )
    spellings = (
        links.select(F.col("src").alias("canonical"), F.coalesce("src_written", "src").alias("written"))
        .union(links.select(F.col("dst").alias("canonical"), F.coalesce("dst_written", "dst").alias("written")))
        .distinct()
    )
    out = spellings.join(component, spellings.canonical == component.iri).select(
        F.col("written").alias("iri"), "component"
    )
    out_path = os.path.join(args.dir, "components")
    out.write.mode("overwrite").option("compression", "zstd").parquet(out_path)
    written = spark.read.parquet(out_path)
    iris = written.count()
    classes = written.select("component").distinct().count()
    print(
        f"{out_path}: {iris} IRIs in {classes} components after {rounds} rounds "
        f"of large-star/small-star in {time.time() - started:.1f} s on {master}",
        file=sys.stderr,
    )
    spark.stop()


if __name__ == "__main__":
    main()
