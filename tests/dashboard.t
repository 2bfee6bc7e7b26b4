#!/bin/sh
# The Grafana dashboard (scripts/grafana/collbench.json) queries only
# metrics and labels that a real --prom file holds, and the file passes
# Prometheus' own promtool. instance and job are the labels Prometheus adds
# when it scrapes node_exporter's textfile collector.
. tests/lib.sh
plan 5

jq -e '.panels | length > 0 and all(.targets | length > 0)' scripts/grafana/collbench.json >/dev/null
ok $? "the dashboard is JSON with panels and queries"

# A run that writes every family: results, run info and verdicts.
# (exit 1 is a verdict a loaded machine may give; the file is what is tested)
mpi 2 --accept topologies/localhost.conf --max-time 0.05 --prom "$TMP/cb.prom"
[ $STATUS -le 1 ] && grep -q '^collbench_acceptance_verdict{' "$TMP/cb.prom"
ok $? "--accept --prom run writes its file with verdicts (exit $STATUS)"
promtool_ok "$TMP/cb.prom"

# check_refs DASHBOARD PROMFILE: every collbench_* metric a query names is
# in the file, and every label it matches, groups by, or prints in a legend
# is a label of one of the query's metrics (or instance/job).
check_refs() {
  python3 - "$1" "$2" >"$TMP/refs" 2>&1 <<'PY'
import json, re, sys
dash, prom = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
labels = {}
for line in prom.splitlines():
    m = re.match(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? ', line)
    if m and not line.startswith('#'):
        labels.setdefault(m[1], set()).update(re.findall(r'([a-zA-Z_]\w*)="', m[3] or ''))
queries = [(t['expr'], t.get('legendFormat', '')) for p in dash['panels'] for t in p['targets']]
queries += [(v['definition'], '') for v in dash['templating']['list'] if 'definition' in v]
bad, n = [], 0
for expr, legend in queries:
    metrics = set(re.findall(r'\bcollbench_\w+', expr))
    if not metrics:
        bad.append('no collbench metric in ' + expr)
    have = {'instance', 'job'}
    for m in metrics:
        if m not in labels:
            bad.append('metric %s is not in the file' % m)
        have |= labels.get(m, set())
    used = set(re.findall(r'([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)\s*"', expr))
    for grp in re.findall(r'\b(?:by|without|on|ignoring)\s*\(([^)]*)\)', expr):
        used |= {x.strip() for x in grp.split(',') if x.strip()}
    used |= set(re.findall(r'\{\{\s*(\w+)\s*\}\}', legend))
    m = re.match(r'label_values\(\s*\w+\s*,\s*(\w+)\s*\)', expr)
    if m:
        used.add(m[1])
    for l in sorted(used - have):
        bad.append('label %s not on %s' % (l, ', '.join(sorted(metrics))))
    n += len(metrics) + len(used)
print('\n'.join(bad) or 'checked %d references' % n)
sys.exit(1 if bad or n == 0 else 0)
PY
}
check_refs scripts/grafana/collbench.json "$TMP/cb.prom"
ok $? "every metric and label the dashboard queries is in the --prom file ($(tail -1 "$TMP/refs"))"
diag "$TMP/refs"

# The checker itself catches a misspelt label and a missing metric.
sed 's/check)/checks)/; s/collbench_run_info/collbench_run_infos/' scripts/grafana/collbench.json \
  >"$TMP/bad.json"
! check_refs "$TMP/bad.json" "$TMP/cb.prom" && grep -q 'label checks' "$TMP/refs" &&
  grep -q 'metric collbench_run_infos is not in the file' "$TMP/refs"
ok $? "a dashboard naming a label or metric collbench does not write is refused"
finish
