# The public dumps the recipes read: one `dump` declaration each, sourced by
# indexes/fetch.sh. Fields:
#   file=       the published file name (what --mirror DIR must hold)
#   url=        where it is published
#   sha256=     the checksum it must have, pinned where the published file is
#               immutable (a file at a git commit: the sha256 here was computed
#               from that very file); absent for Wikimedia's `latest-` names
#               (checksum lists exist only for the dated dumps) and the Databus
#               files (the Databus lists a sha256 in each version's metadata,
#               which this runner does not read yet), whose sha256 is computed
#               and recorded in the index's provenance instead
#   format=     nt (line-based N-Triples, which is filtered line by line before
#               parsing) or ttl
#   rewrite=    sed expressions applied to the kept lines (to bring one
#               authority's IRIs to the form the other dumps write)
#   publisher=, version=, licence=, size= (compressed, as published)
# Sizes of the Wikimedia and Databus dumps are the publishers' listings at the
# time of writing and grow with every release; they were not downloaded here.

dump dbpedia-gnd-en \
  file=dnb-links.nt.bz2 \
  url=https://raw.githubusercontent.com/dbpedia/links/9863694c2601e6af56a51c1505d188998d1c5ba7/links/dbpedia.org/dnb/dnb-links.nt.bz2 \
  sha256=8e89c734554be532a97ff860dcb35abe91d55961048af888693fd543acde6842 \
  format=nt \
  publisher="DBpedia link sets (github.com/dbpedia/links), from the Deutsche Nationalbibliothek" \
  version="dbpedia/links@9863694" licence=CC0-1.0 size="0.8 MB (80,522 links)"

dump dbpedia-gnd-en-extended \
  file=dnb-extended-links.nt.bz2 \
  url=https://raw.githubusercontent.com/dbpedia/links/9863694c2601e6af56a51c1505d188998d1c5ba7/links/dbpedia.org/dnb/dnb-extended-links.nt.bz2 \
  sha256=04e7e22cba779c6c9812c67d75cc2927838023074fd8b71eb8c34270f7d99cc7 \
  format=nt \
  publisher="DBpedia link sets (github.com/dbpedia/links), from the Deutsche Nationalbibliothek" \
  version="dbpedia/links@9863694" licence=CC0-1.0 size="2.4 MB (232,051 links)"

dump dbpedia-gnd-de \
  file=de_dnb-wikidata-links.nt.bz2 \
  url=https://raw.githubusercontent.com/dbpedia/links/9863694c2601e6af56a51c1505d188998d1c5ba7/links/xxx.dbpedia.org/de/dnb/de_dnb-wikidata-links.nt.bz2 \
  sha256=a7ec34185aef6f33c027285c59a320943d46658bb80e8ca161ab0dc4c0d1a616 \
  format=nt \
  publisher="DBpedia link sets (github.com/dbpedia/links), from the Deutsche Nationalbibliothek" \
  version="dbpedia/links@9863694" licence=CC0-1.0 size="3.9 MB (381,058 links)"

dump dbpedia-interlanguage-en \
  file="interlanguage-links_lang=en.ttl.bz2" \
  url="https://databus.dbpedia.org/dbpedia/generic/interlanguage-links/2022.12.01/interlanguage-links_lang=en.ttl.bz2" \
  format=nt \
  publisher="DBpedia Association (DBpedia Databus, generic extraction)" \
  version=2022.12.01 licence=CC-BY-SA-3.0 size="hundreds of MB (not downloaded here)"

# Wikidata's full dump in N-Triples: sitelinks (schema:about), Freebase ids
# (wdt:P646), authority ids as IRIs (wdtn:), labels, P31 types. The truthy dump
# is smaller but has neither sitelinks nor wdtn: values. The gzip edition, not
# the bzip2 one: on this machine gzip decompressed N-Triples 3.9 times as fast as
# bzip2 (see indexes/README.md), for a file about 1.4 times as large.
dump wikidata-all \
  file=latest-all.nt.gz \
  url=https://dumps.wikimedia.org/wikidatawiki/entities/latest-all.nt.gz \
  format=nt \
  rewrite='s#<https://d-nb\.info/gnd/#<http://d-nb.info/gnd/#' \
  publisher="Wikimedia Foundation (dumps.wikimedia.org)" \
  version=latest licence=CC0-1.0 size="over 100 GB, over 15 billion statements (not downloaded here)"
