# bench/doc_section.sh — sourced by the bench scripts: write one "## " section of a
# Markdown file (docs/performance.md), keeping every other section as it is.
#
#   write_section FILE HEADING BODY
#
# BODY starts with HEADING itself. The old section (from HEADING to the next "## " or
# "### " heading: a hand-written subsection after a generated section stays) is replaced; when there is none, BODY is appended. FILE is created with a
# title line when missing; runs of blank lines are squeezed.
write_section() {
  local file=$1 heading=$2 body=$3 tmp
  mkdir -p "$(dirname "$file")"
  [[ -f "$file" ]] || printf '# Performance\n\nMeasured by the benchmarks under bench/ (`make bench`), never by timed unit tests.\n' > "$file"
  tmp=$(mktemp)
  BODY="$body" awk -v h="$heading" '
    BEGIN { body = ENVIRON["BODY"]; done = 0; skip = 0 }
    /^###? / { if (skip) skip = 0; if ($0 == h) { print body; print ""; done = 1; skip = 1; next } }
    !skip { print }
    END { if (!done) { print ""; print body } }
  ' "$file" > "$tmp"
  cat -s "$tmp" > "$file"
  rm -f "$tmp"
}
