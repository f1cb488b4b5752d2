#!/bin/sh
# answers_compare.sh — every answer of two builds, byte for byte, on the
# deterministic inputs tests/answers.c writes: the GJK88 set and 3 000
# random pairs (1-D to 8-D; radii, poses and matrices, compounds,
# primitives, meshes, flat positions, warm starts, tolerances, iteration
# caps) each through every method and every want; motions (pose_end);
# containment queries; 24 scenes; a damaged line now and then (problems).
# Query files go through `clash query` on one thread and on two (the batch
# code's blocks), contains files through `clash contains`, in chunks of
# 250 lines; each scene through `clash scene`.  Then `answers
# core`: clash_gjk's every member, iterations and backups included, on the
# GJK88 set and random pairs, plain and prepared, every want, warm started.
# A case is one answer line (stdout), or one stderr or exit status.
# For a change meant to keep every answer (`make answers-compare` builds
# the base revision and runs this).
#   usage: sh tests/answers_compare.sh OLD_CLASH OLD_ANSWERS NEW_CLASH NEW_ANSWERS
set -u
[ $# -eq 4 ] || { echo "usage: $0 OLD_CLASH OLD_ANSWERS NEW_CLASH NEW_ANSWERS" >&2; exit 2; }
old_clash=$1 old_answers=$2 new_clash=$3 new_answers=$4
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/in" || exit 2
"$new_answers" gen "$dir/in" || { echo "answers_compare: gen failed" >&2; exit 2; }
cases=0 differ=0

# compare LABEL: $dir/old.* against $dir/new.* (out, err, status); adds
# to the file's counts fc and fd.
compare() {
	n=$(wc -l <"$dir/new.out")
	d=0
	if ! cmp -s "$dir/old.out" "$dir/new.out"; then
		d=$(diff "$dir/old.out" "$dir/new.out" | grep -c '^>')
		[ "$d" -gt 0 ] || d=1
		echo "answers_compare: $1: $d answers differ, first:" >&2
		diff "$dir/old.out" "$dir/new.out" | head -4 | cut -c1-400 >&2
	fi
	for f in err status; do
		n=$((n + 1))
		if ! cmp -s "$dir/old.$f" "$dir/new.$f"; then
			d=$((d + 1))
			echo "answers_compare: $1: std$f differs" >&2
		fi
	done
	st=$(cat "$dir/new.status")
	if [ "$st" -gt 2 ]; then
		echo "answers_compare: $1: exit status $st (a crash?), the lines after it unanswered:" >&2
		tail -2 "$dir/new.err" >&2
	fi
	fc=$((fc + n))
	fd=$((fd + d))
}

# run LABEL CMD...: CMD on each side, "@clash" and "@answers" standing
# for that side's programs.
run() {
	label=$1
	shift
	for side in old new; do
		eval "clash=\$${side}_clash answers=\$${side}_answers"
		cmd=""
		for a in "$@"; do
			case $a in
			@clash) a=$clash ;;
			@answers) a=$answers ;;
			esac
			cmd="$cmd '$a'"
		done
		eval "$cmd" >"$dir/$side.out" 2>"$dir/$side.err"
		echo $? >"$dir/$side.status"
	done
	compare "$label"
}

# total LABEL: the file's counts, added to the whole run's.
total() {
	echo "answers_compare: $1: $fc cases, $fd differ"
	cases=$((cases + fc))
	differ=$((differ + fd))
	fc=0 fd=0
}
fc=0 fd=0

# JSON Lines files go in chunks of 250 lines, so that a crash on one
# line costs only its chunk.
mkdir "$dir/chunk" || exit 2
for q in "$dir"/in/q_*.jsonl "$dir"/in/c_*.jsonl; do
	b=$(basename "$q")
	rm -f "$dir"/chunk/*
	split -l 250 -a 3 "$q" "$dir/chunk/"
	case $b in
	q_*) ways="query --threads 1|query --threads 2" ;;
	*) ways="contains" ;; # one thread only
	esac
	IFS='|'
	for way in $ways; do
		unset IFS
		for c in "$dir"/chunk/*; do
			run "$b $way $(basename "$c")" @clash $way "$c"
		done
		total "$b $way"
	done
	unset IFS
done
for s in "$dir"/in/s_*.json; do
	run "$(basename "$s")" @clash scene "$s"
done
total "scenes"
run "core" @answers core
total "core"

echo "answers_compare: $cases cases, $differ differ"
[ "$differ" -eq 0 ]
