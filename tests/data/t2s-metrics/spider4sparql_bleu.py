# T2S-Metrics 1.2.0's Bleu and SPF1 on the Spider4SPARQL dev set and the GPT-3.5
# zero-shot run, joined by position, each query with `PREFIX :` declared first
# when it uses the benchmark's `:` prefix undeclared (as qajudge reads them).
import json, re, sys
from t2smetrics.core.eval import QueryCase
from t2smetrics.representation.sparql_query import SparqlQuery
from t2smetrics.metrics import Bleu, SPF1
def declared(t):
    if re.search(r'(?i)prefix\s*:', t) or not re.search(r'(?<![\w>"])\:[A-Za-z_]', t):
        return t
    return "PREFIX : <http://valuenet/ontop/>\n" + t
d=json.load(open(sys.argv[1])); r=json.load(open(sys.argv[2]))
b,s=Bleu(),SPF1(); bs,ss=[],[]
for i,(g,p) in enumerate(zip(d,r)):
    c=QueryCase(id=str(i),golden=SparqlQuery(declared(g['query'])),generated=SparqlQuery(declared(p['predicted_sparql'])),order_matters=False)
    bs.append(b.run(c).score); ss.append(s.run(c).score)
print(json.dumps({"bleu": sum(bs)/len(bs), "sp_f1": sum(ss)/len(ss), "bleu_0": bs[0], "sp_f1_0": ss[0], "bleu_2": bs[2]}))
