# SPDX-License-Identifier: GPL-2.0
#
# stats.awk: summarise the raw lines of tests/bench/bench.sh.
#   awk -v json=FILE -v dat=PREFIX [-v meta='"k": v, ...,\n'] \
#       -f stats-lib.awk -f stats.awk RAW
# writes markdown on stdout, JSON to FILE, gnuplot data to PREFIX{micro,pg}.dat.
# Raw lines (whitespace separated):
#   micro MAPPING PROCS MODE REP ACQ_PER_SEC CONTENDED_PCT WAIT_NS MINFLT HUGE_KB
#   pg HUGEPAGES CLIENTS MODE REP TPS FAILED
#   ovh KERNEL TEST MODE REP NS_PER_OP        (KERNEL: unpatched | patched)
#   policy GROUP ROW-PREFIX MODE ...          preempt-policy's choice for the
#                                             rows of GROUP starting with it
#   boot POLICY_NS BOOT_NS MODE EXIT TOOL_NS  (d) tiny boot (upper bound),
#                                             one per -icount boot
#   dboot ROUND with|without BOOT_NS MODE STATUS PIVOT_NS
#                                             (d) dracut boot, A/B per round
#   sw SECOND TPS FAILED ROLE                 (e), ROLE start|switch|steady
#   swtotal FAILED PGBENCH_EXIT SWITCHES_OK SWITCHES_REFUSED TPS
# Per cell: n, median, quartiles. Modes are compared with lazy (the default)
# and the patched kernel with the unpatched one by the ratio of medians and
# a two-sided Mann-Whitney U test: exact null distribution when there are no
# ties and both samples have at most 25 values, else the normal
# approximation with tie and continuity corrections.

# The shared helpers (isort, quant, samples, mwu, fmt, jstr) are in
# stats-lib.awk, loaded before this file.

# add a sample: group g (table), row key r, column c
function add(g, r, c, v) {
	if (!((g, r) in rowseen)) {
		rowseen[g, r] = 1
		rows[g] = rows[g] (rows[g] == "" ? "" : "|") r
	}
	if (!((g, c) in colseen)) {
		colseen[g, c] = 1
		cols[g] = cols[g] (cols[g] == "" ? "" : "|") c
	}
	data[g, r, c] = data[g, r, c] (data[g, r, c] == "" ? "" : " ") v
}

$1 == "micro" && $6 != "" { add("micro", $2 " procs=" $3, $4, $6); rep_of["micro", $2 " procs=" $3, $4] = 1 }
$1 == "pg" && $6 != "" { add("pg", "hugepages=" $2 " clients=" $3, $4, $6) }
$1 == "policy" && NF >= 4 { pol[$2, $3] = $4; polkeys[$2] = polkeys[$2] " " $3 }
$1 == "boot" && $3 > 0 {
	bpol = bpol " " $2; bboot = bboot " " $3; bratio = bratio " " 100 * $2 / $3
	if ($6 != "")
		btool = btool " " $6
	bmodes = bmodes " " $4; bexits = bexits " " $5
}
$1 == "dboot" && $4 > 0 {
	dns[$3] = dns[$3] " " $4
	dround[$2, $3] = $4
	if (!($2 in dseen)) {
		dseen[$2] = 1
		dorder[++ndr] = $2
	}
	dmode[$3] = dmode[$3] (dmode[$3] == "" ? "" : " ") $5
	dstat[$3] = dstat[$3] (dstat[$3] == "" ? "" : " ") $6
	if ($7 ~ /^[0-9]+$/)
		dpiv[$3] = dpiv[$3] " " $7
}
$1 == "sw" && $5 != "" { swtps[$5] = swtps[$5] " " $3; swfailed += $4 }
$1 == "swtotal" { swtot = $0 }
$1 == "ovh" && $6 != "" {
	add("ovh", $3 " mode=" $4, $2, $6)
	pair[$3 " mode=" $4, $2, $5] = $6
	if (!($5 in repseen)) {
		repseen[$5] = 1
		replist = replist " " $5
	}
}

# one table: rows x columns, median [q1, q3] (n), then comparisons against ref
function table(g, title, unit, ref, better,    nr, nc, R, C, i, j, s, arr, n, med, \
		q1, q3, line, refmed, p, ratio, first) {
	if (rows[g] == "")
		return
	nr = split(rows[g], R, "|")
	nc = split(cols[g], C, "|")
	print "### " title
	print ""
	line = "| |"
	for (j = 1; j <= nc; j++)
		line = line " " C[j] " |"
	print line
	line = "|---|"
	for (j = 1; j <= nc; j++)
		line = line "---:|"
	print line
	for (i = 1; i <= nr; i++) {
		line = "| " R[i] " |"
		for (j = 1; j <= nc; j++) {
			s = data[g, R[i], C[j]]
			n = samples(s, arr)
			if (n == 0) {
				line = line " - |"
				continue
			}
			med = quant(arr, n, 0.5); q1 = quant(arr, n, 0.25); q3 = quant(arr, n, 0.75)
			line = line " " fmt(med) " [" fmt(q1) "-" fmt(q3) "] (" n ") |"
			summary[g, R[i], C[j]] = med
			jrows = jrows (jrows == "" ? "" : ",\n") "  {\"group\":" jstr(g) ",\"row\":" \
				jstr(R[i]) ",\"col\":" jstr(C[j]) ",\"n\":" n ",\"median\":" med \
				",\"q1\":" q1 ",\"q3\":" q3 ",\"samples\":[" s2c(s) "]}"
		}
		print line
	}
	print ""
	print "Median [quartiles] (runs), " unit "."
	print ""
	if (ref == "")
		return
	first = 1
	for (i = 1; i <= nr; i++) {
		if (data[g, R[i], ref] == "")
			continue
		n = samples(data[g, R[i], ref], arr)
		refmed = quant(arr, n, 0.5)
		for (j = 1; j <= nc; j++) {
			if (C[j] == ref || data[g, R[i], C[j]] == "")
				continue
			if (first) {
				print "| " R[1] " ... | vs " ref " | ratio of medians | U | p (two-sided) | test |"
				print "|---|---|---:|---:|---:|---|"
				first = 0
			}
			n = samples(data[g, R[i], C[j]], arr)
			ratio = refmed ? quant(arr, n, 0.5) / refmed : 0
			p = mwu(data[g, R[i], C[j]], data[g, R[i], ref])
			print "| " R[i] " | " C[j] " | " sprintf("%.3f", ratio) " | " mw_u " | " \
				(p < 0 ? "-" : sprintf("%.3g", p)) (p >= 0 && p < 0.05 ? " *" : "") " | " mw_method " |"
			jcmp = jcmp (jcmp == "" ? "" : ",\n") "  {\"group\":" jstr(g) ",\"row\":" \
				jstr(R[i]) ",\"col\":" jstr(C[j]) ",\"ref\":" jstr(ref) ",\"ratio\":" \
				sprintf("%.4f", ratio) ",\"u\":" (mw_u == "-" ? "null" : mw_u) ",\"p\":" \
				(p < 0 ? "null" : sprintf("%.4g", p)) ",\"method\":" jstr(mw_method) "}"
		}
	}
	if (!first) {
		print ""
		print "`*`: p < 0.05. " better
		print ""
	}
}

function s2c(s) {
	gsub(/ /, ",", s)
	return s
}

# per-round ratios patched/unpatched for part (c)
function pairs(    nr, R, i, k, rep, lst, n, arr, r, REP, nrep) {
	if (rows["ovh"] == "")
		return
	nr = split(rows["ovh"], R, "|")
	print "| test | per-round patched/unpatched ratios: median | min | max | rounds |"
	print "|---|---:|---:|---:|---:|"
	for (i = 1; i <= nr; i++) {
		lst = ""
		nrep = split(replist, REP, " ")
		for (k = 1; k <= nrep; k++) {
			rep = REP[k]
			if ((R[i], "unpatched", rep) in pair && (R[i], "patched", rep) in pair && \
			    pair[R[i], "unpatched", rep] > 0)
				lst = lst " " pair[R[i], "patched", rep] / pair[R[i], "unpatched", rep]
		}
		n = samples(lst, arr)
		if (n == 0)
			continue
		r = sprintf("%.4f", quant(arr, n, 0.5))
		print "| " R[i] " | " r " | " sprintf("%.4f", arr[1]) " | " sprintf("%.4f", arr[n]) " | " n " |"
		jpair = jpair (jpair == "" ? "" : ",\n") "  {\"row\":" jstr(R[i]) ",\"median\":" r \
			",\"min\":" sprintf("%.4f", arr[1]) ",\"max\":" sprintf("%.4f", arr[n]) ",\"n\":" n "}"
	}
	print ""
}

# gnuplot data: one block per row (two blank lines between), x = column index
function gpdata(g, file,    nr, nc, R, C, i, j, arr, n) {
	if (rows[g] == "" || file == "")
		return
	nr = split(rows[g], R, "|")
	nc = split(cols[g], C, "|")
	printf "" > file
	for (i = 1; i <= nr; i++) {
		printf "\"%s\"\n", R[i] >> file
		for (j = 1; j <= nc; j++) {
			n = samples(data[g, R[i], C[j]], arr)
			if (n)
				printf "%d %s %g %g %g\n", j - 1, C[j], quant(arr, n, 0.5), \
					quant(arr, n, 0.25), quant(arr, n, 0.75) >> file
		}
		printf "\n\n" >> file
	}
	close(file)
}

# quartile summary "median [q1-q3] (n)" of the samples in s
function qsum(s,    arr, n) {
	n = samples(s, arr)
	if (n == 0)
		return "-"
	return fmt(quant(arr, n, 0.5)) " [" fmt(quant(arr, n, 0.25)) "-" fmt(quant(arr, n, 0.75)) "] (" n ")"
}

function median(s,    arr, n) {
	n = samples(s, arr)
	return n ? quant(arr, n, 0.5) : 0
}

# the 98 % goal: wherever the modes differ significantly (Mann-Whitney,
# best vs worst median, p < 0.05), preempt-policy's mode gets at least 98 %
# of the best mode's median (higher is better in g)
function verdict(g, title,    nr, nc, R, C, i, j, k, np, P, pre, chosen, best, worst, \
		bm, wm, m, cm, ratio, p, v, line) {
	if (rows[g] == "" || polkeys[g] == "")
		return
	nr = split(rows[g], R, "|")
	nc = split(cols[g], C, "|")
	np = split(polkeys[g], P, " ")
	print "#### " title ": the mode preempt-policy chose vs the best mode"
	print ""
	print "| | chosen | best | worst | chosen/best | best vs worst: ratio, p | goal: chosen >= 98 % of best |"
	print "|---|---|---|---|---:|---:|---|"
	for (i = 1; i <= nr; i++) {
		chosen = ""
		for (k = 1; k <= np; k++)
			if (R[i] == P[k] || index(R[i], P[k] " ") == 1)
				chosen = pol[g, P[k]]
		if (chosen == "")
			continue
		best = worst = ""
		for (j = 1; j <= nc; j++) {
			if (data[g, R[i], C[j]] == "")
				continue
			m = median(data[g, R[i], C[j]])
			if (best == "" || m > bm) { best = C[j]; bm = m }
			if (worst == "" || m < wm) { worst = C[j]; wm = m }
		}
		if (best == "")
			continue
		p = mwu(data[g, R[i], best], data[g, R[i], worst])
		cm = data[g, R[i], chosen] == "" ? -1 : median(data[g, R[i], chosen])
		ratio = cm >= 0 && bm > 0 ? cm / bm : -1
		if (ratio < 0)
			v = "chosen mode not measured"
		else if (p < 0 || p >= 0.05)
			v = "no significant gap"
		else
			v = ratio >= 0.98 ? "PASS" : "FAIL"
		line = "| " R[i] " | " chosen " | " best " | " worst " | " \
			(ratio < 0 ? "-" : sprintf("%.3f", ratio)) " | " \
			(wm > 0 ? sprintf("%.3f", bm / wm) : "-") ", " (p < 0 ? "-" : sprintf("%.3g", p)) \
			" | " v " |"
		print line
		jpol = jpol (jpol == "" ? "" : ",\n") "  {\"group\":" jstr(g) ",\"row\":" jstr(R[i]) \
			",\"chosen\":" jstr(chosen) ",\"best\":" jstr(best) ",\"worst\":" jstr(worst) \
			",\"chosen_over_best\":" (ratio < 0 ? "null" : sprintf("%.4f", ratio)) \
			",\"best_over_worst\":" (wm > 0 ? sprintf("%.4f", bm / wm) : "null") \
			",\"p\":" (p < 0 ? "null" : sprintf("%.4g", p)) ",\"verdict\":" jstr(v) "}"
	}
	print ""
	print "Best and worst: highest and lowest median. The goal applies only where the"
	print "gap between them is significant (p < 0.05), which the exact test cannot"
	print "reach with fewer than 4 runs per cell: then \"no significant gap\"."
	print ""
}

# "none x3, lazy x1" from space-separated words
function tally(s,    w, n, i, c, k, out) {
	n = split(s, w, " ")
	for (i = 1; i <= n; i++)
		c[w[i]]++
	for (k in c)
		out = out (out == "" ? "" : ", ") k " x" c[k]
	return out == "" ? "-" : out
}

# all words of s equal to w (and at least one)
function allare(s, w,    a, n, i) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++)
		if (a[i] != w)
			return 0
	return n > 0
}

# (d) the boot-time policy's cost as a share of the boot. The goal is judged
# on the dracut boot: median(A, with the hook) - median(B, without) as % of
# median(B), the hook proven by the modes the root's init found (A none,
# B lazy). The tiny boot (the rig's busybox /init, pp_apply timed inside)
# is the smallest possible boot, so its ratio is an upper bound.
function bootcost(    arr, n, i, r, rr, ma, mb, cost, pct, ok, v, why, tiny, jr, 		rmed, rmin, rmax, nr, tmed, tmx) {
	n = samples(bratio, arr)
	tiny = n > 0
	if (tiny) {
		tmed = quant(arr, n, 0.5)
		tmin = arr[1]
		tmx = arr[n]
		tn = n
	}
	nr = 0
	rr = ""
	for (i = 1; i <= ndr; i++) {
		r = dorder[i]
		if ((r, "with") in dround && (r, "without") in dround && dround[r, "without"] > 0) {
			rr = rr " " 100 * (dround[r, "with"] - dround[r, "without"]) / dround[r, "without"]
			jr = jr (jr == "" ? "" : ",") "{\"round\":" r ",\"with_ns\":" dround[r, "with"] \
				",\"without_ns\":" dround[r, "without"] ",\"cost_pct\":" \
				sprintf("%.4f", 100 * (dround[r, "with"] - dround[r, "without"]) / dround[r, "without"]) "}"
			nr++
		}
	}
	if (!tiny && nr == 0)
		return
	if (nr > 0) {
		ma = median(dns["with"])
		mb = median(dns["without"])
		cost = ma - mb
		pct = 100 * cost / mb
		n = samples(rr, arr)
		rmed = quant(arr, n, 0.5); rmin = arr[1]; rmax = arr[n]
		ok = allare(dmode["with"], "none") && allare(dmode["without"], "lazy")
		if (!ok) {
			v = "FAIL"
			why = "the hook did not run as it should: the root's init found " tally(dmode["with"]) \
				" with it (none expected), " tally(dmode["without"]) " without it (lazy expected)"
		} else {
			# The whole-boot difference also catches costs outside the
			# hook (a bigger initramfs to unpack) but moves with host
			# I/O; the pre-pivot stretch, from kernel-log stamps, holds
			# the hook and is steady. Judge the larger of the two
			# against the least disturbed boot without the hook.
			judged = cost
			basis = "whole-boot medians"
			if (dpiv["with"] != "" && dpiv["without"] != "") {
				piv = median(dpiv["with"]) - median(dpiv["without"])
				if (piv > judged) {
					judged = piv
					basis = "pre-pivot stretch medians (larger than the whole-boot difference)"
				}
			}
			n = samples(dns["without"], arr)
			bmin = arr[1]
			jpct = 100 * judged / bmin
			v = jpct < 1 ? "PASS" : "FAIL"
			why = sprintf("%.3f ms from the %s = %.3f %% of the fastest boot without the hook, %.1f ms; whole-boot per-round median %.3f %%, min %.3f %%, max %.3f %% over %d rounds", \
				judged / 1e6, basis, jpct, bmin / 1e6, rmed, rmin, rmax, nr)
			if (rmin < 0 && rmax > 0)
				why = why "; the whole-boot rounds straddle 0: that difference is below the boot-to-boot noise"
		}
	} else {
		v = "NOT JUDGED"
		why = "no dracut boot measured; the tiny boot alone is only an upper bound"
	}
	print "### (d) boot-time policy cost, QEMU -icount (guest time counts instructions)"
	print ""
	print "| boot | policy cost, ms | boot without it, ms | cost, % of the boot | per round/boot, %: median [min, max] (n) |"
	print "|---|---:|---:|---:|---:|"
	if (nr > 0)
		printf "| dracut initramfs to the real root's init: A (with 55preempt-policy) - B (without), medians | %.3f | %.3f | %.3f | %.3f [%.3f, %.3f] (%d) |\n", \
			cost / 1e6, mb / 1e6, pct, rmed, rmin, rmax, nr
	if (tiny)
		printf "| upper bound, the smallest possible boot: the rig's busybox /init, pp_apply timed inside | %.3f | %.3f | %.3f | %.3f [%.3f, %.3f] (%d) |\n", \
			median(bpol) / 1e6, median(bboot) / 1e6, 100 * median(bpol) / median(bboot), \
			tmed, tmin, tmx, tn
	print ""
	if (nr > 0) {
		print "Dracut boot, per boot (kernel start to the real root's init reading CLOCK_BOOTTIME):"
		print ""
		print "| | median [quartiles] (boots) | min | max |"
		print "|---|---:|---:|---:|"
		print "| (A) with 55preempt-policy, ms | " qsum2(dns["with"], 1e6) " |"
		print "| (B) without it, ms | " qsum2(dns["without"], 1e6) " |"
		print "| per-round (A - B) / B, % | " qsum2(rr, 1) " |"
		if (dpiv["with"] != "" && dpiv["without"] != "") {
			print "| (A) dracut \"Mounted root filesystem\" to \"Switching root\" (holds the hook), ms | " qsum2(dpiv["with"], 1e6) " |"
			print "| (B) the same stretch without it, ms | " qsum2(dpiv["without"], 1e6) " |"
		}
		print ""
		print "Mode at the root's init: A " tally(dmode["with"]) ", B " tally(dmode["without"]) \
			"; /run/preempt-policy/status: A " tally(dstat["with"]) ", B " tally(dstat["without"]) "."
		if (dpiv["with"] != "" && dpiv["without"] != "")
			printf "Pre-pivot stretch, median A - B: %.3f ms (from the kernel log; the boot's I/O waits make the whole-boot figures noisier).\n", \
				(median(dpiv["with"]) - median(dpiv["without"])) / 1e6
		print ""
	}
	if (tiny) {
		print "Upper bound, per boot (the rig's busybox /init: kernel start to its mounts; pp_apply on tests/initrd/roots/pg-big timed inside):"
		print ""
		print "| | median [quartiles] (boots) | min | max |"
		print "|---|---:|---:|---:|"
		print "| hook + preempt-policy apply, ms | " qsum2(bpol, 1e6) " |"
		if (btool != "")
			print "| the tool alone (warm rerun, --dry-run apply), ms | " qsum2(btool, 1e6) " |"
		print "| kernel start to /init's mounts done, ms | " qsum2(bboot, 1e6) " |"
		print "| ratio, % | " qsum2(bratio, 1) " |"
		print ""
		print "Mode after the hook: " tally(bmodes) "; tool exit: " tally(bexits) "."
		print ""
	}
	print "Goal, the policy adds under 1 % to the guest's boot (judged on the dracut boot): **" v "** (" why ")."
	if (tiny)
		printf "The tiny boot's %.3f %% (worst %.3f %%) is the share on the smallest possible boot, an upper bound as long as the hook costs a real boot no more than it costs there (%.3f ms; compare the dracut rows).\n", \
			tmed, tmx, median(bpol) / 1e6
	print ""
	jboot = "{\"verdict\":" jstr(v) ",\"dracut\":"
	if (nr > 0)
		jboot = jboot "{\"with_ns\":[" s2c(substr(dns["with"], 2)) "],\"without_ns\":[" \
			s2c(substr(dns["without"], 2)) "],\"rounds\":[" jr "],\"cost_ns\":" sprintf("%.0f", cost) \
			",\"cost_pct\":" sprintf("%.4f", pct) ",\"round_pct_median\":" sprintf("%.4f", rmed) \
			",\"round_pct_min\":" sprintf("%.4f", rmin) ",\"round_pct_max\":" sprintf("%.4f", rmax) \
			",\"pivot_with_ns\":[" s2c(substr(dpiv["with"], 2)) "],\"pivot_without_ns\":[" \
			s2c(substr(dpiv["without"], 2)) "],\"modes_with\":" jstr(dmode["with"]) \
			",\"modes_without\":" jstr(dmode["without"]) ",\"hook_proven\":" (ok ? "true" : "false") "}"
	else
		jboot = jboot "null"
	jboot = jboot ",\"tiny_upper_bound\":"
	if (tiny)
		jboot = jboot "{\"policy_ns\":[" s2c(substr(bpol, 2)) "],\"boot_ns\":[" s2c(substr(bboot, 2)) \
			"],\"tool_warm_ns\":[" s2c(substr(btool, 2)) \
			"],\"ratio_pct_median\":" sprintf("%.4f", tmed) ",\"ratio_pct_max\":" sprintf("%.4f", tmx) "}"
	else
		jboot = jboot "null"
	jboot = jboot "}"
}

# "median [q1-q3] (n) | min | max" of s divided by d
function qsum2(s, d,    arr, n) {
	n = samples(s, arr)
	return sprintf("%.3f [%.3f-%.3f] (%d) | %.3f | %.3f", quant(arr, n, 0.5) / d, \
		quant(arr, n, 0.25) / d, quant(arr, n, 0.75) / d, n, arr[1] / d, arr[n] / d)
}

# (e) tps in the seconds with a runtime mode switch vs the steady seconds
function switchcost(    T, arr, n, sm, st, p, worst, v, f) {
	if (swtps["switch"] == "" && swtps["steady"] == "")
		return
	split(swtot, T, " ")
	sm = median(swtps["switch"])
	st = median(swtps["steady"])
	n = samples(swtps["switch"], arr)
	worst = n ? arr[1] : 0
	p = mwu(swtps["switch"], swtps["steady"])
	f = T[2] == "" ? "NA" : T[2]
	v = f == "0" && T[3] == "0" && swfailed == 0 ? "PASS" : "FAIL"
	print "### (e) runtime mode switches under a running pgbench (multi-threaded TCG)"
	print ""
	print "| seconds | tps: median [quartiles] (seconds) |"
	print "|---|---:|"
	print "| with a mode switch | " qsum(swtps["switch"]) " |"
	print "| steady (no switch) | " qsum(swtps["steady"]) " |"
	print "| start (first second, not compared) | " qsum(swtps["start"]) " |"
	print ""
	print "Dip: switch-second median / steady median " (st ? sprintf("%.3f", sm / st) : "-") \
		", worst switch second / steady median " (st ? sprintf("%.3f", worst / st) : "-") \
		"; Mann-Whitney U " mw_u ", p " (p < 0 ? "-" : sprintf("%.3g", p)) " (" mw_method ")."
	print "Switches accepted " T[4] ", refused " T[5] "; pgbench exit " T[3] ", overall " (T[6] == "NA" ? "NA" : fmt(T[6] + 0)) " tps."
	print "Goal, no failed transaction: **" v "** (" f " failed at the end, " swfailed " in the per-second reports)."
	print ""
	jsw = "{\"switch_tps\":[" s2c(substr(swtps["switch"], 2)) "],\"steady_tps\":[" \
		s2c(substr(swtps["steady"], 2)) "],\"dip_median_ratio\":" (st ? sprintf("%.4f", sm / st) : "null") \
		",\"dip_worst_ratio\":" (st ? sprintf("%.4f", worst / st) : "null") ",\"p\":" \
		(p < 0 ? "null" : sprintf("%.4g", p)) ",\"failed\":" (f == "NA" ? "null" : f) \
		",\"failed_progress\":" swfailed ",\"pgbench_exit\":" (T[3] == "" ? "null" : T[3]) \
		",\"switches_ok\":" (T[4] == "" ? "null" : T[4]) ",\"switches_refused\":" \
		(T[5] == "" ? "null" : T[5]) ",\"verdict\":" jstr(v) "}"
}

END {
	table("micro", "(a) s_lock microbenchmark: acquisitions/s by preemption mode", \
		"acquisitions per second, higher is better", "lazy", \
		"A ratio above 1: faster than lazy.")
	verdict("micro", "(a)")
	table("pg", "(b) pgbench simple-update: tps by preemption mode", \
		"transactions per second, higher is better", "lazy", \
		"A ratio above 1: faster than lazy.")
	verdict("pg", "(b)")
	table("ovh", "(c) patched vs unpatched kernel, QEMU -icount (guest time counts instructions)", \
		"ns per operation, lower is better", "unpatched", \
		"A ratio above 1: the patched kernel is slower.")
	pairs()
	bootcost()
	switchcost()
	gpdata("micro", dat "micro.dat")
	gpdata("pg", dat "pg.dat")
	if (json != "") {
		printf "{\n%s \"cells\": [\n%s\n ],\n \"comparisons\": [\n%s\n ],\n \"ovh_pairs\": [\n%s\n ],\n \"policy_choice\": [\n%s\n ],\n \"boot_cost\": %s,\n \"switch_cost\": %s\n}\n", \
			meta, jrows, jcmp, jpair, jpol, (jboot == "" ? "null" : jboot), \
			(jsw == "" ? "null" : jsw) > json
		close(json)
	}
}
