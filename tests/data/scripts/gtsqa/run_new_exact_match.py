import ast, json, sys
# new_exact_match as synth_kgqa/eval.py defines it (the module itself imports the
# repository's LLM clients: torch, vllm …), taken from the file and executed unchanged
tree = ast.parse(open(sys.argv[1]).read())
fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "new_exact_match")
ns = {}
exec(compile(ast.Module([ast.parse("import re").body[0], fn], type_ignores=[]), sys.argv[1], "exec"), ns)
ems = []
for line in open(sys.argv[2]):
    j = json.loads(line)
    ems.append(ns["new_exact_match"](j["prediction"], j["ground_truth"]))
    print(j["id"], ems[-1])
print("em", sum(ems) / len(ems))
