#!/usr/bin/env python3
"""check-monitoring.py METRICS DASHBOARD.json RULES.yml... -- the operator
kit (tools/monitoring) asks only for what vnumad exports.

METRICS is a GET /metrics answer of a running vnumad (tests/api/api-test.sh
takes it from its replayed host, where every family has samples).  The
metric families are its `# TYPE` lines; a histogram also exports
NAME_bucket, NAME_sum and NAME_count.  Every metric name in a dashboard
query (panels' targets, the templating queries) or an alert rule's expr
must be one of them, every expression must name at least one, and rate(),
irate() and increase() may only be taken of a counter.  Prints one line
per problem and exits 1 if there is any.
"""
import json
import re
import sys

import yaml

# PromQL words that are not metric names (functions are recognised by the
# "(" after them; these are the operators and modifiers).
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right",
            "bool", "and", "or", "unless", "offset", "inf", "nan"}
IDENT = re.compile(r"(?<![\w.:])([A-Za-z_:][A-Za-z0-9_:]*)")
RATED = re.compile(r"\b(rate|irate|increase)\s*\(\s*([A-Za-z_:][A-Za-z0-9_:]*)")


def exported(path):
    """name -> type, from the # TYPE lines of a Prometheus text answer."""
    families = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4 and parts[:2] == ["#", "TYPE"]:
                name, kind = parts[2], parts[3]
                families[name] = kind
                if kind == "histogram":
                    for suffix in ("_bucket", "_sum", "_count"):
                        families[name + suffix] = "counter"
    return families


def skeleton(expr):
    """The expression without what cannot hold a metric name: strings,
    label matchers, ranges, Grafana variables, grouping label lists."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', '""', expr)
    e = re.sub(r"\{[^}]*\}", " ", e)
    e = re.sub(r"\[[^\]]*\]", " ", e)
    e = re.sub(r"\$\{[^}]*\}|\$\w+", " ", e)
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    return e


def metric_names(expr):
    """Metric names of a PromQL expression (Grafana's label_values(EXPR,
    LABEL) is EXPR)."""
    m = re.fullmatch(r"\s*label_values\s*\((.*),\s*\w+\s*\)\s*", expr, re.S)
    e = skeleton(m.group(1) if m else expr)
    names = set()
    for ident in IDENT.finditer(e):
        word = ident.group(1)
        rest = e[ident.end():].lstrip()
        if word in KEYWORDS or rest.startswith("("):
            continue
        names.add(word)
    return names, e


def dashboard_queries(path):
    with open(path, encoding="utf-8") as f:
        dash = json.load(f)
    queries = []

    def panels(items):
        for p in items:
            for t in p.get("targets", []):
                if "expr" in t:
                    queries.append((f'panel "{p.get("title")}" {t.get("refId")}', t["expr"]))
            panels(p.get("panels", []))

    panels(dash.get("panels", []))
    for v in dash.get("templating", {}).get("list", []):
        q = v.get("query")
        if v.get("type") == "query":
            queries.append((f'variable "{v.get("name")}"', q["query"] if isinstance(q, dict) else q))
    return queries


def rule_queries(path):
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    return [(f'rule "{r.get("alert") or r.get("record")}"', r["expr"])
            for g in doc["groups"] for r in g["rules"]]


def main():
    if len(sys.argv) < 4:
        print("usage: check-monitoring.py METRICS DASHBOARD.json RULES.yml...", file=sys.stderr)
        return 2
    families = exported(sys.argv[1])
    if not families:
        print(f"{sys.argv[1]}: no # TYPE line: not a /metrics answer")
        return 1
    queries = [(sys.argv[2], w, q) for w, q in dashboard_queries(sys.argv[2])]
    for path in sys.argv[3:]:
        queries += [(path, w, q) for w, q in rule_queries(path)]
    problems = []
    for path, where, expr in queries:
        names, e = metric_names(expr)
        if not names:
            problems.append(f"{path}: {where}: no metric name in {expr!r}")
        for n in sorted(names - families.keys()):
            problems.append(f"{path}: {where}: {n} is not exported by vnumad's /metrics")
        for fn, n in RATED.findall(e):
            if families.get(n, "counter") != "counter":
                problems.append(f"{path}: {where}: {fn}() of {n}, a {families[n]}")
    for p in problems:
        print(p)
    print(f"# {len(queries)} queries, {len(families)} exported names", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
