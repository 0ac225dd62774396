#!/usr/bin/env bash
# Owns the rule of the source tree's layers: a file includes only files of
# its own layer or of a layer below (docs/DEVELOPING.md, "Layout").  From
# the bottom: src/tools (generic), src/config and src/core (the
# configuration and the model), src/state (the process state and its
# files), src/shared (the reading of Slurm both readers share), then
# src/sim (the simulator: the core's pass on a model of the cluster,
# never libslurm nor a Slurm header of its own; the command's alone),
# then src/plugins and src/cli.  Prints every include that reaches up and
# fails on any.  Usage: scripts/check-layers.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
declare -A level=([tools]=0 [config]=1 [core]=1 [state]=2 [shared]=3 [sim]=4 [plugins]=5 [cli]=5)
bad=0
for f in src/*/*.[ch]; do
	d=$(basename "$(dirname "$f")")
	[[ -n ${level[$d]:-} ]] || continue
	while IFS= read -r inc; do
		t=${inc%%/*}
		[[ -n ${level[$t]:-} ]] || continue
		if ((level[$t] > level[$d])) || { [[ $t != "$d" ]] && ((level[$t] == 5)); } ||
		   { [[ $t == sim && $d == plugins ]]; }; then
			echo "layers: $f includes $inc (src/$t is above src/$d)" >&2
			bad=1
		fi
	done < <(sed -n 's/^#include "\([a-z_]*\/[a-z_]*\.h\)".*/\1/p' "$f")
	# the simulator models Slurm: no header of Slurm's in its files
	if [[ $d == sim ]] && grep -q '^#include [<"]\(slurm/\|src/\)' "$f"; then
		echo "layers: $f includes a Slurm header (src/sim models Slurm, reads none)" >&2
		bad=1
	fi
done
((bad == 0)) && echo "layers: every include is of its own layer or one below"
exit "$bad"
