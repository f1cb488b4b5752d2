#!/bin/sh
# cli_compare.sh — the clash tool's answers against another build's, byte
# for byte: stdout, stderr and exit status of every command on a set of
# inputs that reaches each output path (results, problems placed in their
# line, inputs that are not JSON Lines, scene summaries, imports, usage).
# For a change meant to keep the CLI's behaviour (`make cli-compare`
# builds the base revision's clash and runs this).
#   usage: sh tests/cli_compare.sh OLD_CLASH NEW_CLASH
set -u
[ $# -eq 2 ] || { echo "usage: $0 OLD_CLASH NEW_CLASH" >&2; exit 2; }
old=$1 new=$2
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
cases=0 differ=0

# run NAME HOW ARGS...: run both builds with ARGS, stdin from $dir/NAME
# (HOW: "file" redirects it, a regular file; "pipe" pipes it through cat)
# and compare what they write and how they exit.
run() {
	name=$1 how=$2
	shift 2
	for side in old new; do
		eval "bin=\$$side"
		if [ "$how" = pipe ]; then
			cat "$dir/$name" | "$bin" "$@" >"$dir/$side.out" 2>"$dir/$side.err"
		else
			"$bin" "$@" <"$dir/$name" >"$dir/$side.out" 2>"$dir/$side.err"
		fi
		echo $? >"$dir/$side.status"
	done
	cases=$((cases + 1))
	for f in out err status; do
		if ! cmp -s "$dir/old.$f" "$dir/new.$f"; then
			differ=$((differ + 1))
			echo "cli_compare: $name ($how, $*): std$f differs" >&2
			diff "$dir/old.$f" "$dir/new.$f" | head -5 >&2
		fi
	done
}

cube='[[0,0,0],[1,0,0],[0,1,0],[0,0,1],[1,1,1],[1,1,0],[1,0,1],[0,1,1]]'
cubes() { printf '{"a":{"vertices":%s},"b":{"vertices":%s,"pose":{"translation":[%s,0,0]}}%s}' \
	"$cube" "$cube" "$1" "${2:-}"; }

# Queries: every method and want, motion, compound, primitive, mesh.
{
	cubes 3; echo
	cubes 0.5 ',"method":"simplex"'; echo
	cubes 3 ',"method":"ipm"'; echo
	cubes 0.5 ',"want":["intersecting"]'; echo
	cubes 3 ',"want":["distance","depth"]'; echo
	echo '{"a":{"vertices":[[0,0]],"radius":1},"b":{"vertices":[[3,0],[3,1]],"pose":{"angle":0.5}}}'
	echo '{"a":{"vertices":[[0,0,0]],"pose":{"translation":[-10,0,0]},"pose_end":{"translation":[10,0,0]}},"b":{"vertices":[[0,-1,-1],[0.1,-1,-1],[0,1,1],[0.1,1,1],[0,1,-1],[0,-1,1]]}}'
	echo '{"a":{"parts":[{"vertices":[[0,0,0],[1,0,0]]},{"vertices":[[0,2,0]],"radius":0.5}]},"b":{"vertices":[[0,5,0]]}}'
	echo '{"a":{"sphere":{"radius":1}},"b":{"box":{"half_extents":[1,1,1]},"pose":{"translation":[3,0,0]}}}'
	echo '{"a":{"mesh":{"positions":[0,0,0,1,0,0,0,1,0],"indices":[0,1,2]}},"b":{"vertices":[[0,0,2]]}}'
} >"$dir/q_good"
# Problems of every kind, blank lines, CRLF, a NUL byte, no final newline.
{
	cubes 3; echo
	echo '{"a":{"vertices":[]},"b":{"vertices":[[0,0,0]]}}'
	printf '\n  \t\n'
	echo '{"a": tru}'
	echo '{"a":{"vertices":[[1e400,0,0]]},"b":{"vertices":[[0,0,0]]}}'
	echo '{"a":{"ref":"sha256:0000000000000000000000000000000000000000000000000000000000000000"},"b":{"vertices":[[0,0,0]]}}'
	echo '{"a":{"vertices":[[0,0,0]]},"b":{"vertices":[[0,0,0]]},"w~x/\u00e9":1}'
	printf '{"a":{"vertices":[[0,0,0]]},"\377k":1}\n'
	printf '{"a":1,"a":2}\r\n'
	printf '{"a":{"vertices":[[0,0,0]]}\000,"b":1}\n'
	echo '[1]'
	echo '42'
	echo '{"a":{"vertices":[[0,0,0]]},"b":{"vertices":[[1,0,0]]},"method":"nope"}'
	printf '{"a":{"vertices":[[0,0,0]]},"b":{"vertices":[[1,0,0]]}'
} >"$dir/q_problems"
i=0
while [ $i -lt 300 ]; do cubes "$i.25"; echo; i=$((i + 1)); done >"$dir/q_many"
: >"$dir/empty"
printf '\n\n' >"$dir/blank"
# Inputs that are not JSON Lines, and some that only look so.
printf '{\n  "a": {"vertices": [[0,0,0]]},\n  "b": {"vertices": [[1,0,0]]}\n}\n' >"$dir/f_pretty"
{ printf '\n  \n'; cat "$dir/f_pretty" "$dir/f_pretty"; } >"$dir/f_stream"
{ printf '['; cubes 3; printf ','; cubes 5; echo ']'; } >"$dir/f_array"
{ echo '['; cubes 3; echo ','; cubes 5; echo; echo ']'; } >"$dir/f_array_lines"
{ echo '{"a": {"vertices": [[0,0,0],'; cubes 3; echo; cubes 5; echo; } >"$dir/f_broken_first"
echo '{' >"$dir/f_open_alone"
{ echo '{"a":'; echo '{"vertices":[[0,0,0]]}, "b": {"vertices": [[2,0,0]]}}'; } >"$dir/f_two_lines"
{ echo '{'; cubes 3; echo; } >"$dir/f_open_then_line"
printf '{"a":\n]]\n' >"$dir/f_open_then_broken"
# Containment.
{
	echo '{"inner":{"vertices":[[0.1,0.1]]},"outer":{"vertices":[[0,0],[1,0],[0,1]]}}'
	echo '{"inner":{"vertices":[[2,2],[0.1,0.1]]},"outer":{"vertices":[[0,0],[1,0],[0,1]]},"tolerance":0.001}'
	echo
	echo '{"inner":1}'
	echo '{"inner": nul}'
} >"$dir/c_mixed"
printf '{"inner": {"vertices": [[0,0]]},\n "outer": 1}\n' >"$dir/c_two_lines"
# Scenes: summaries (several classes, truncated, one pair, none), problems.
ball() { printf '{"id":"%s","shape":{"vertices":[[%s,0,0]],"radius":1}}' "$1" "$2"; }
{ printf '{"objects": [\n  '; ball a 0; printf ',\n  '; ball b 1.5; printf ',\n  '; ball c 2.5
  printf ',\n  '; ball d 4.5; printf ',\n  '; ball 'x\"candidates\":9' 5.5
  printf '\n], "clearance": 1}\n'; } >"$dir/s_good"
{ printf '{"objects": ['; ball a 0; printf ','; ball b 1.5; printf ','; ball c 2.5
  printf '], "max_clashes": 1}'; } >"$dir/s_truncated"
{ printf '{"objects": ['; ball a 0; printf ','; ball b 1.5; printf ']}'; } >"$dir/s_one"
{ printf '{"objects": ['; ball a 0; printf ','; ball b 10; printf ']}'; } >"$dir/s_none"
printf '{\n  "objects": [1]\n}\n' >"$dir/s_invalid"
printf '{\n  "objects": [\n}\n' >"$dir/s_malformed"
# Meshes to import.
printf 'solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n' >"$dir/t.stl"
printf 'o quad\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n' >"$dir/m.obj"
printf 'not a mesh\n' >"$dir/bad.stl"

for how in file pipe; do
	for q in q_good q_problems empty blank f_pretty f_stream f_array f_array_lines \
		f_broken_first f_open_alone f_two_lines f_open_then_line f_open_then_broken; do
		run "$q" "$how" query
	done
	for c in c_mixed c_two_lines f_pretty empty; do run "$c" "$how" contains; done
	for s in s_good s_truncated s_one s_none s_invalid s_malformed empty f_array; do
		run "$s" "$how" scene
	done
	run t.stl "$how" import --format stl -
	run m.obj "$how" import --format obj -
	run bad.stl "$how" import --format stl -
done
run q_many file query --threads 1
run q_many file query --threads 3
run q_many pipe query -j 2
run q_good file query "$dir/q_good"
run q_problems file query "$dir/q_problems"
run s_good file scene "$dir/s_good"
run empty file import "$dir/m.obj"
run empty file import "$dir/t.stl"
run empty file import "$dir/bad.stl"
run empty file import "$dir/m.txt"
run empty file import --format xyz "$dir/m.obj"
run empty file query "$dir/no-such-file"
run empty file scene "$dir/no-such-file"
run empty file query --threads 0
run empty file query --bogus
run empty file query a b
run empty file bogus
run empty file
for cmd in "" query scene contains import; do run empty file $cmd --help; done

echo "cli_compare: $cases cases, $differ outputs differ"
[ "$differ" -eq 0 ]
