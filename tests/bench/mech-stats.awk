# SPDX-License-Identifier: GPL-2.0
#
# mech-stats.awk: summarise the mechanism benchmark (tests/bench/
# mechanism.sh).
#   awk -v json=FILE -v dat=FILE [-v took=S -v reps=N -v secs=S -v size=MIB
#       -v pg_t=N -v date=ISO] -f stats-lib.awk -f mech-stats.awk RAW
# writes the markdown table on stdout, one JSON object per cell to json and
# the anon rows' holder counts to dat (gnuplot, one block per arch x vCPUs).
# Raw lines, one per run:
#   mech ARCH VCPUS KERNEL MODE MEMORY RSEQ REP KEY=VALUE...
# A cell is (ARCH, VCPUS, KERNEL, MODE, MEMORY, RSEQ). Each of its numbers is
# summarised by median and quartiles over the runs, and compared with the
# cell of the patched kernel in lazy (same arch, vCPUs and memory, no rseq)
# by the ratio of medians and a two-sided Mann-Whitney U test.

BEGIN {
	# the numbers of a run, in table order; the rest go to the JSON only
	nm = split("acq_per_sec spins_per_acq out_pm in_kernel_pm at_return_pm " \
		   "at_return_fault_pm at_return_irq_pm blocked_pm contended_pct " \
		   "ns_per_txn ns_per_fault in_kernel at_return at_return_fault at_return_irq " \
		   "at_return_other blocked not_holding events no_stack lost minflt " \
		   "nivcsw huge_kb slice_granted slice_yielded ftrace_worker_switches", M, " ")
	kernel_name["patched"] = "patched (dynamic)"
	kernel_name["seed"] = "seed: PREEMPT_NONE build"
	kernel_name["seeddyn"] = "seed: dynamic, none default"
	kernel_name["seedfix"] = "seed + x86 fix: PREEMPT_NONE build"
}

$1 == "mech" {
	key = $2 SUBSEP $3 SUBSEP $4 SUBSEP $5 SUBSEP $6 SUBSEP $7
	if (!(key in runs))
		order[++ncell] = key
	runs[key]++
	delete run
	for (i = 9; i <= NF; i++) {
		k = $i
		sub(/=.*/, "", k)
		v = $i
		sub(/^[^=]*=/, "", v)
		if (v == "")
			continue
		S[key, k] = S[key, k] (S[key, k] == "" ? "" : " ") v
		run[k] = v
	}
	# every time the holder left the CPU, wherever
	if (("in_kernel_pm" in run) && ("at_return_pm" in run) && ("blocked_pm" in run)) {
		v = run["in_kernel_pm"] + run["at_return_pm"] + run["blocked_pm"]
		S[key, "out_pm"] = S[key, "out_pm"] (S[key, "out_pm"] == "" ? "" : " ") v
	}
}

# the lazy cell of the patched kernel that cell c is compared with
function ref_of(c,    f) {
	split(c, f, SUBSEP)
	return f[1] SUBSEP f[2] SUBSEP "patched" SUBSEP "lazy" SUBSEP f[5] SUBSEP "off"
}

function med(c, k,    arr, n) {
	n = samples(S[c, k], arr)
	return n ? quant(arr, n, 0.5) : ""
}

# "median [q1-q3]", or "-" without samples
function mq(c, k,    arr, n) {
	n = samples(S[c, k], arr)
	if (!n)
		return "-"
	return fmt(quant(arr, n, 0.5)) " [" fmt(quant(arr, n, 0.25)) "-" \
		fmt(quant(arr, n, 0.75)) "]"
}

# p against the reference for number k, "-" where there is none
function pref(c, k,    r, p) {
	r = ref_of(c)
	if (r == c || !((r, k) in S) || !((c, k) in S))
		return "-"
	p = mwu(S[c, k], S[r, k])
	if (p < 0)
		return "-"
	return sprintf("%.3g%s", p, p < 0.05 ? "*" : "")
}

function mode_label(c,    f) {
	split(c, f, SUBSEP)
	if (f[4] == "boot")
		return f[3] == "seeddyn" ? "none (boot default)" : "none (built in)"
	return f[4] (f[6] == "slice" ? " + rseq slice" : "")
}

function json_cell(c,    f, i, k, arr, n, r, p, first) {
	split(c, f, SUBSEP)
	printf "    {\"arch\": %s, \"vcpus\": %d, \"kernel\": %s, \"mode\": %s, " \
		"\"memory\": %s, \"rseq\": %s, \"runs\": %d, \"metrics\": {", \
		jstr(f[1]), f[2], jstr(f[3]), jstr(f[4] == "boot" ? "none" : f[4]),
		jstr(f[5]), jstr(f[6]), runs[c] >json
	first = 1
	for (i = 1; i <= nm; i++) {
		k = M[i]
		if (!((c, k) in S))
			continue
		n = samples(S[c, k], arr)
		printf "%s\n      %s: {\"median\": %s, \"q1\": %s, \"q3\": %s, \"n\": %d",
			first ? "" : ",", jstr(k), quant(arr, n, 0.5), quant(arr, n, 0.25),
			quant(arr, n, 0.75), n >json
		r = ref_of(c)
		if (r != c && ((r, k) in S)) {
			p = mwu(S[c, k], S[r, k])
			if (p >= 0)
				printf ", \"vs_lazy_ratio\": %s, \"vs_lazy_p\": %.4g, " \
					"\"vs_lazy_test\": %s", med(r, k) ? sprintf("%.4f", \
					med(c, k) / med(r, k)) : "null", p, jstr(mw_method) >json
		}
		printf "}" >json
		first = 0
	}
	printf "\n    }}" >json
}

# per_mode_table MEMORY KEY UNIT TITLE: the cells of one non-lock
# "memory" (faultcost, pgbench), one number each, against lazy
function per_mode_table(mem, k, unit, title,    i, c, f, n, r, ratio) {
	n = 0
	for (i = 1; i <= ncell; i++) {
		split(order[i], f, SUBSEP)
		if (f[5] == mem)
			n++
	}
	if (!n)
		return
	print ""
	print "### " title
	print ""
	print "| arch | vCPUs | kernel | mode | " unit " | vs lazy | p | runs |"
	print "|---|---:|---|---|---:|---:|---:|---:|"
	for (i = 1; i <= ncell; i++) {
		c = order[i]
		split(c, f, SUBSEP)
		if (f[5] != mem)
			continue
		r = ref_of(c)
		ratio = "-"
		if (r != c && ((r, k) in S))
			ratio = sprintf("%.3f", med(c, k) / med(r, k))
		printf "| %s | %s | %s | %s | %s | %s | %s | %d |\n", f[1], f[2],
			kernel_name[f[3]], mode_label(c), mq(c, k), ratio, pref(c, k), runs[c]
	}
}

END {
	if (!ncell) {
		print "mech-stats.awk: no mech lines" >"/dev/stderr"
		exit 1
	}
	printf "{\n  \"date\": %s, \"reps\": %d, \"secs\": %s, \"size_mib\": %d, " \
		"\"pg_t\": %d, \"seconds\": %d,\n  \"cells\": [\n", \
		jstr(date), reps, secs, size, pg_t, took >json
	for (i = 1; i <= ncell; i++) {
		json_cell(order[i])
		printf "%s\n", i < ncell ? "," : "" >json
	}
	printf "  ]\n}\n" >json

	print "### Where the lock holder is scheduled out (slock-bench --trace, QEMU -icount)"
	print ""
	print "Per million critical sections, the lock holder left the CPU (holder out:"
	print "all of the following, per run), and was: preempted in the kernel"
	print "(`R+`: inside the page fault), scheduled out at the return to user space"
	print "(`R`) after the section's page fault or after an interrupt (the tick, an"
	print "IPI) that hit the section in user mode, or blocked (`S`/`D`). Median"
	print "[quartiles] over the runs; acquisitions per second of guest time. p: two-"
	print "sided Mann-Whitney U against lazy on the patched kernel (same arch, vCPUs"
	print "and memory); `*` p < 0.05."
	print ""
	print "| arch | vCPUs | kernel | mode | memory | acq/s | p | spins/acq | holder out /M | p | in kernel /M | p | return after fault /M | p | return after irq /M | p | blocked /M | runs |"
	print "|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= ncell; i++) {
		c = order[i]
		split(c, f, SUBSEP)
		if (f[5] == "pgbench" || f[5] == "faultcost")
			continue
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n",
			f[1], f[2], kernel_name[f[3]], mode_label(c), f[5],
			mq(c, "acq_per_sec"), pref(c, "acq_per_sec"), mq(c, "spins_per_acq"),
			mq(c, "out_pm"), pref(c, "out_pm"),
			mq(c, "in_kernel_pm"), pref(c, "in_kernel_pm"),
			mq(c, "at_return_fault_pm"), pref(c, "at_return_fault_pm"),
			mq(c, "at_return_irq_pm"), pref(c, "at_return_irq_pm"),
			mq(c, "blocked_pm"), runs[c]
	}
	per_mode_table("faultcost", "ns_per_fault", "ns/fault",
		"A first-touch fault alone, guest ns per 4 KiB page (ovh-bench fault 32, -icount)")
	per_mode_table("pgbench", "ns_per_txn", "ns/transaction",
		"pgbench simple-update, guest time per transaction (QEMU -icount; a boot of its own, x86_64 with tsc=reliable)")
	# gnuplot: one block per arch x vCPUs, the anon (4 KiB) cells
	nb = 0
	for (i = 1; i <= ncell; i++) {
		c = order[i]
		split(c, f, SUBSEP)
		if (f[5] != "anon")
			continue
		b = f[1] "/" f[2] "vCPU"
		if (!(b in blk)) {
			blk[b] = ++nb
			bname[nb] = b
		}
		rows[blk[b]] = rows[blk[b]] sprintf("\"%s %s\" %s %s %s %s\n",
			f[3] == "patched" ? "" : f[3], mode_label(c),
			med(c, "in_kernel_pm"), med(c, "at_return_fault_pm"),
			med(c, "at_return_irq_pm"), med(c, "blocked_pm"))
	}
	for (i = 1; i <= nb; i++) {
		printf "\"%s\" in_kernel return_after_fault return_after_irq blocked\n%s\n\n",
			bname[i], rows[i] >dat
	}
}
