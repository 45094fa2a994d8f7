#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/completion.sh ABS_BUILDDIR - bash completion of lsmnt, statmnt
# and mntwatch (completion/mntkit), driven the way bash drives it: the
# function `complete -p` names is called with COMP_LINE, COMP_POINT,
# COMP_WORDS and COMP_CWORD set as bash sets them (words broken at
# COMP_WORDBREAKS, '=' and ':' included), and each reply replaces what
# readline takes as the word (the text after the last break character).
# Every case runs in a bare `bash --norc` that sources only our file, and
# again after bash-completion's own bash_completion (installed when
# missing and possible), since users have either.

. "$(dirname "$0")/lib.sh"
cli_init "$1"

COMP=$SRCDIR/completion/mntkit
export PATH="$BUILDDIR/tools:$PATH"

# the driver: LINE in, one completed word per line out
cat >"$CLI_TMP/drive.sh" <<'SH'
# drive PRELUDE COMPFILE LINE
prelude=$1 compfile=$2 line=$3
[ -n "$prelude" ] && . "$prelude"
. "$compfile"
# bash's words: blanks separate, each run of break characters is a word
COMP_WORDBREAKS=${COMP_WORDBREAKS:-$' \t\n"\x27><=;|&(:'}
words=() w=""
for ((i = 0; i < ${#line}; i++)); do
	c=${line:i:1}
	if [[ $c == [[:space:]] ]]; then
		[[ -n $w ]] && words+=("$w")
		w=""
	elif [[ $COMP_WORDBREAKS == *"$c"* ]]; then
		[[ -n $w && $w != *[=:] ]] && { words+=("$w"); w=""; }
		w+=$c
	else
		[[ $w == *[=:] ]] && { words+=("$w"); w=""; }
		w+=$c
	fi
done
if [[ $line == *[[:space:]] ]]; then
	words+=("")
else
	words+=("$w")
fi
COMP_WORDS=("${words[@]}")
COMP_CWORD=$((${#words[@]} - 1))
COMP_LINE=$line
COMP_POINT=${#line}
spec=$(complete -p "${words[0]##*/}" 2>/dev/null) || { echo "NO-COMPLETION"; exit 0; }
fn=${spec#*-F }
fn=${fn%% *}
COMPREPLY=()
"$fn" "${words[0]}" "${words[COMP_CWORD]}" "${words[COMP_CWORD-1]}"
# readline's word: the text after the last break character of the line
base=${line##*[[:space:]\"\'><=;|&(:]}
head=${line%"$base"}
last=${head##*[[:space:]]}
for r in "${COMPREPLY[@]}"; do
	printf '%s\n' "$last$r"
done
SH

# expect NAME PRELUDE LINE WORD...: every WORD among the completions of
# LINE; a WORD "!X" must not be among them
expect_comp() {
	local name=$1 prelude=$2 line=$3 out w missing=""
	shift 3
	out=$(cd "$CLI_TMP" && env -i PATH="$PATH" HOME="$CLI_TMP" \
		bash --norc --noprofile "$CLI_TMP/drive.sh" "$prelude" "$COMP" "$line" 2>&1)
	for w in "$@"; do
		if [[ $w == !* ]]; then
			grep -qxF -- "${w#!}" <<<"$out" && missing="$missing unexpected:${w#!}"
		else
			grep -qxF -- "$w" <<<"$out" || missing="$missing $w"
		fi
	done
	if [ -z "$missing" ]; then
		pass "$name"
	else
		fail "$name" "'$line' lacks$missing; got: $(head -n 12 <<<"$out" | tr '\n' ' ')"
	fi
}

cases() {
	local p=$1 tag=$2
	expect_comp "${tag}lsmnt_options" "$p" "lsmnt --sha" --shadowed
	expect_comp "${tag}lsmnt_short_and_long" "$p" "lsmnt --out" --output --output= --output-all
	expect_comp "${tag}lsmnt_poll_list" "$p" "lsmnt --poll=" --poll=mount --poll=umount \
		--poll=move '!--poll=--poll='
	expect_comp "${tag}lsmnt_poll_next_item" "$p" "lsmnt --poll=mount,um" --poll=mount,umount
	expect_comp "${tag}lsmnt_output_plus" "$p" "lsmnt -o +u" +UUID +UNIQ-ID +USED
	expect_comp "${tag}lsmnt_output_eq" "$p" "lsmnt --output=TA" --output=TARGET
	expect_comp "${tag}lsmnt_output_list" "$p" "lsmnt -o TARGET,SO" TARGET,SOURCE TARGET,SOURCES
	expect_comp "${tag}lsmnt_output_colon" "$p" "lsmnt -o MAJ:" MAJ:MIN
	expect_comp "${tag}lsmnt_output_lower" "$p" "lsmnt -o fsr" FSROOT
	expect_comp "${tag}lsmnt_every_column" "$p" "lsmnt -o " \
		$(lsmnt -H | awk '{ print $1 }')
	expect_comp "${tag}lsmnt_types" "$p" "lsmnt -t tmp" tmpfs
	expect_comp "${tag}lsmnt_types_eq" "$p" "lsmnt --types=pro" --types=proc
	expect_comp "${tag}lsmnt_target_dir" "$p" "lsmnt -T /pro" /proc
	expect_comp "${tag}lsmnt_ns" "$p" "lsmnt --ns pi" pid:
	expect_comp "${tag}lsmnt_direction" "$p" "lsmnt -d b" backward
	expect_comp "${tag}statmnt_options" "$p" "statmnt --js" --json
	expect_comp "${tag}statmnt_mask" "$p" "statmnt --mask sb_basic,mnt_" \
		sb_basic,mnt_basic sb_basic,mnt_root sb_basic,mnt_point
	expect_comp "${tag}statmnt_mask_eq" "$p" "statmnt --mask=fs_" --mask=fs_type --mask=fs_subtype
	expect_comp "${tag}statmnt_path" "$p" "statmnt /pro" /proc
	expect_comp "${tag}mntwatch_options" "$p" "mntwatch --ini" --initial
	expect_comp "${tag}mntwatch_events" "$p" "mntwatch -e attach,de" attach,detach
	expect_comp "${tag}mntwatch_source" "$p" "mntwatch --source f" fanotify
	expect_comp "${tag}mntwatch_source_eq" "$p" "mntwatch --source=po" --source=poll
}

if ! have_cmd bash; then
	skip completion "no bash"
	cli_done
fi
cases "" ""

BC=/usr/share/bash-completion/bash_completion
if [ ! -f "$BC" ] && is_root; then
	sh "$SRCDIR/scripts/deps.sh" bash-completion >/dev/null 2>&1
fi
if [ -f "$BC" ]; then
	cases "$BC" "bash_completion/"
else
	skip bash_completion "the bash-completion package is not installed (and cannot be)"
fi
cli_done
