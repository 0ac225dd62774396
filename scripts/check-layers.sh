#!/usr/bin/env bash
# Owns the rule of the source tree's layers: a file includes only files of
# its own layer or of a layer below (docs/DEVELOPING.md, "Layout").  From
# the bottom: src/tools (generic), src/config and src/core (the
# configuration and the model), src/state (the process state and its
# files), src/shared (the reading of Slurm both readers share), then
# src/plugins and src/cli.  Prints every include that reaches up and
# fails on any.  Usage: scripts/check-layers.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
declare -A level=([tools]=0 [config]=1 [core]=1 [state]=2 [shared]=3 [plugins]=4 [cli]=4)
bad=0
for f in src/*/*.[ch]; do
	d=$(basename "$(dirname "$f")")
	[[ -n ${level[$d]:-} ]] || continue
	while IFS= read -r inc; do
		t=${inc%%/*}
		[[ -n ${level[$t]:-} ]] || continue
		if ((level[$t] > level[$d])) || { [[ $t != "$d" ]] && ((level[$t] == 4)); }; then
			echo "layers: $f includes $inc (src/$t is above src/$d)" >&2
			bad=1
		fi
	done < <(sed -n 's/^#include "\([a-z_]*\/[a-z_]*\.h\)".*/\1/p' "$f")
done
((bad == 0)) && echo "layers: every include is of its own layer or one below"
exit "$bad"
