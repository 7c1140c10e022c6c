#!/usr/bin/python3
"""Parses a Prometheus text exposition with the reference parser (Debian's
python3-prometheus-client, hence /usr/bin/python3 rather than a pyenv or venv python3) and
prints every sample, one per line, sorted:

    TYPE NAME{label="value",...} VALUE

Reads the file named on the command line, or stdin. Exits 1, with the parser's error, when the
text does not parse. Used by the tests of base/metrics.h and the admin listener's /metrics
(docs/METRICS.md), and handy on a live scrape:
    curl -s -H "Authorization: Bearer $TOKEN" http://127.0.0.1:8081/metrics | scripts/prom-parse.py
"""
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else sys.stdin.read()
    lines = []
    try:
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                labels = ",".join('%s="%s"' % (k, v) for k, v in sorted(s.labels.items()))
                lines.append("%s %s{%s} %r" % (family.type, s.name, labels, float(s.value)))
    except Exception as e:  # the parser raises ValueError and friends on malformed text
        print("prom-parse: %s" % e, file=sys.stderr)
        return 1
    for line in sorted(lines):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
