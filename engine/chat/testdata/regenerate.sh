#!/bin/sh
# Renders every template of templates.tsv (name, BOS, EOS, tab-separated)
# for every conversation with llama.cpp's render (render.cpp, built as the
# README says) into expected/NAME/CONVERSATION.gen.txt (with the
# generation prompt) and .nogen.txt (without). The wall clock is pinned
# at 26 Jul 2024 (clock.c) so that templates calling strftime_now render
# the date they fall back to when it is not defined, as package chat
# renders them. Usage: regenerate.sh RENDER CLOCK.so
set -eu
render=$1 clock=$2
cd "$(dirname "$0")"
tab=$(printf '\t')
while IFS="$tab" read -r name bos eos; do
	mkdir -p "expected/$name"
	for conv in conversations/*.json; do
		base=$(basename "$conv" .json)
		LD_PRELOAD=$clock "$render" "$name.jinja" "$conv" "$bos" "$eos" 1 >"expected/$name/$base.gen.txt"
		LD_PRELOAD=$clock "$render" "$name.jinja" "$conv" "$bos" "$eos" 0 >"expected/$name/$base.nogen.txt"
	done
done <templates.tsv
