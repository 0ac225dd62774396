#!/usr/bin/env bash
# A gang gets room in one switch (docs/MODEL.md "Gangs"), TopologyPlugin=
# topology/tree: 4 nodes x 2 GPUs, switch s0 = n1, n3 and s1 = n2, n4.
# team-b (quota 2) runs b1..b4, one GPU on each node n1..n4 in that
# order; each node has one GPU idle.  team-a (quota 4) asks 2 GPUs on
# each of 2 nodes.  team-b may lose 2 GPUs: its youngest, b4 (n4) and b3
# (n3), would free a node in each switch.  gpuquota makes room in s0
# instead: b1 (n1) and b3 (n3) are requeued, team-a's job runs on n1 and
# n3, b2 and b4 go on running.  The unit test gang_room_in_one_switch
# works the same case by hand.
. "$(dirname "$0")/lib.sh"

cat >"$DIR/topology.in.conf" <<'TOPO'
SwitchName=s0 Nodes=n1,n3
SwitchName=s1 Nodes=n2,n4
SwitchName=top Switches=s0,s1
TOPO
up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 4},
                          {"name": "team-b", "gpu_quota": 2}]}' \
	--nodes 4 --gpus 2 --topology-conf "$DIR/topology.in.conf" \
	--conf-extra TopologyPlugin=topology/tree
wait_logged 30 "gpuquota: 2 switch or block domains over 4 nodes" \
	"gpuquota read the two switches"

declare -A b
for i in 1 2 3 4; do
	b[$i]=$(submit "b$i" team-b 1 -w "n$i"); wait_state "${b[$i]}" RUNNING
	sleep 1	# distinct start times: b4 the youngest
done
a=$(submit a team-a 2 -N 2)
wait_state "$a" RUNNING 60
nodes=$(sl scontrol show hostnames "$(sl squeue -h -j "$a" -o %N)" | paste -sd,)
[[ $nodes == n1,n3 ]] || fail "team-a's job runs on $nodes, want n1,n3 (switch s0)"
for i in 1 3; do
	(($(restarts "${b[$i]}") >= 1)) || fail "b$i (n$i) was not requeued"
done
for i in 2 4; do
	expect_state "${b[$i]}" RUNNING
	[[ $(restarts "${b[$i]}") == 0 ]] || fail "b$i (n$i) was requeued"
done
logged "reclaim: JobId=$a" >/dev/null || fail "no reclaim line for team-a's job"
pass
