# SPDX-License-Identifier: GPL-2.0
#
# metal-stats.awk: summarise a run of tests/bench/bench-metal.sh.
#   awk -v json=FILE -v tpsdat=FILE -v ratiodat=FILE [-v seed=N -v boots=N] \
#       -f stats-lib.awk -f metal-stats.awk MACHINE RAW
# writes the markdown report on stdout, the JSON to json and the gnuplot
# data to tpsdat (tps per mode, one block per page kind) and ratiodat (the
# ratio to the reference mode with its interval, one block per page kind).
# MACHINE: "key: value" lines; "bench.*" are the kit's parameters,
# "pg.*" the server's settings, the rest the machine.
# RAW: one line per pgbench run,
#   run pages=P mode=M block=B rep=R pos=K start=S tps=T lat_ms=L failed=F
#       secs=W txns=N
# (failed is "-" for a pgbench without the count, before PostgreSQL 15).
# A cell is (pages, mode). Per cell: runs, median and quartiles of tps and
# latency, failed transactions summed. Each mode is compared with the
# reference mode (bench.ref, lazy) of its page kind, and hugetlb with 4 KiB
# pages in the same mode, by the ratio of medians with a percentile
# bootstrap 95 % interval (each sample resampled with replacement, boots
# times, seed fixed: the same awk makes the same report again) and a
# two-sided Mann-Whitney U test (stats-lib.awk). With one run per cell the
# interval is the ratio itself: n says how far to trust it.

# heap sort of a[1..n]: the bootstrap sorts thousands of ratios, where
# stats-lib's insertion sort would be quadratic
function hsort(a, n,    i, t) {
	for (i = int(n / 2); i >= 1; i--)
		sift(a, i, n)
	for (i = n; i > 1; i--) {
		t = a[1]; a[1] = a[i]; a[i] = t
		sift(a, 1, i - 1)
	}
}

function sift(a, i, n,    c, t) {
	while ((c = 2 * i) <= n) {
		if (c < n && a[c + 1] > a[c])
			c++
		if (a[i] >= a[c])
			return
		t = a[i]; a[i] = a[c]; a[c] = t
		i = c
	}
}

# median of a resample (with replacement) of the n values of v
function resample_median(v, n,    i, r) {
	for (i = 1; i <= n; i++)
		r[i] = v[int(rand() * n) + 1]
	isort(r, n)
	return quant(r, n, 0.5)
}

# bootci(SA, SB): ratio of medians median(SA)/median(SB) with a percentile
# bootstrap 95 % interval; sets ci_lo and ci_hi, returns the ratio, or -1
# when SB's median is 0 or a sample is empty
function bootci(sa, sb,    a, b, na, nb, ma, mb, i, rb, r, ratios, k) {
	na = samples(sa, a)
	nb = samples(sb, b)
	if (!na || !nb)
		return -1
	ma = quant(a, na, 0.5)
	mb = quant(b, nb, 0.5)
	if (mb == 0)
		return -1
	k = 0
	for (i = 1; i <= boots; i++) {
		rb = resample_median(b, nb)
		if (rb == 0)
			continue
		ratios[++k] = resample_median(a, na) / rb
	}
	hsort(ratios, k)
	ci_lo = quant(ratios, k, 0.025)
	ci_hi = quant(ratios, k, 0.975)
	return ma / mb
}

function getv(k,    i, n, f, kv) {
	n = split($0, f, " ")
	for (i = 2; i <= n; i++) {
		kv = f[i]
		if (index(kv, k "=") == 1)
			return substr(kv, length(k) + 2)
	}
	return ""
}

function addw(s, w) {
	return s == "" ? w : s " " w
}

BEGIN {
	if (boots == "")
		boots = 2000
	if (seed == "")
		seed = 1
	srand(seed)
}

# the machine record (first file): key: value
FNR == NR {
	k = $0
	sub(/: .*/, "", k)
	v = substr($0, length(k) + 3)
	if (k == "" || k == $0)
		next
	if (!(k in info))
		keys[++nkeys] = k
	info[k] = v
	next
}

$1 == "run" {
	p = getv("pages")
	m = getv("mode")
	t = getv("tps")
	if (p == "" || m == "" || t == "")
		next
	c = p SUBSEP m
	if (!(c in runs)) {
		seenp[p] = 1
		seenm[m] = 1
		pfirst = addw(pfirst, p)
		mfirst = addw(mfirst, m)
	}
	runs[c]++
	tps[c] = addw(tps[c], t)
	l = getv("lat_ms")
	if (l != "")
		lat[c] = addw(lat[c], l)
	f = getv("failed")
	if (f ~ /^[0-9]+$/)
		failed[c] += f
	else
		nofail[c] = 1
	nrun++
	run_line[nrun] = $0
}

# order(LIST, SEEN, FIRST, OUT): the words of LIST in SEEN (the kit's order,
# bench.pages or bench.modes), then those of FIRST (as first seen) not yet
# there; returns their number
function order(list, seen, first, out,    n, a, i, s, have) {
	s = ""
	n = split(list " " first, a, " ")
	for (i = 1; i <= n; i++)
		if ((a[i] in seen) && !(a[i] in have)) {
			s = addw(s, a[i])
			have[a[i]] = 1
		}
	return split(s, out, " ")
}

function mq(s,    arr, n) {
	n = samples(s, arr)
	if (!n)
		return "-"
	return fmt(quant(arr, n, 0.5)) " [" fmt(quant(arr, n, 0.25)) "-" fmt(quant(arr, n, 0.75)) "]"
}

function med(s,    arr, n) {
	n = samples(s, arr)
	return n ? quant(arr, n, 0.5) : 0
}

function jnum(x) {
	return x == "" ? "null" : x
}

# jstats S: {"median", "q1", "q3", "n"} of the samples in S
function jstats(s,    arr, n) {
	n = samples(s, arr)
	if (!n)
		return "null"
	return sprintf("{\"median\": %s, \"q1\": %s, \"q3\": %s, \"n\": %d}",
		quant(arr, n, 0.5), quant(arr, n, 0.25), quant(arr, n, 0.75), n)
}

# compare(C, R, NAME): the JSON object and the markdown cells of cell C
# against cell R; sets cmp_md ("ratio [lo, hi] | p")
function compare(c, r, name,    ratio, p) {
	cmp_md = "- | -"
	cmp_ratio = -1
	if (!(r in runs) || c == r)
		return ""
	ratio = bootci(tps[c], tps[r])
	if (ratio < 0)
		return ""
	cmp_ratio = ratio
	p = mwu(tps[c], tps[r])
	cmp_md = sprintf("%.3f [%.3f, %.3f] | %s", ratio, ci_lo, ci_hi,
		p < 0 ? "-" : sprintf("%.3g%s", p, p < 0.05 ? " *" : ""))
	return sprintf(", \"%s\": {\"ratio\": %.4f, \"ci95\": [%.4f, %.4f], \"p\": %s, \"test\": %s, \"n\": [%d, %d]}",
		name, ratio, ci_lo, ci_hi, p < 0 ? "null" : sprintf("%.4g", p), jstr(mw_method),
		runs[c], runs[r])
}

function jsection(prefix,    i, s, k, first) {
	s = "{"
	first = 1
	for (i = 1; i <= nkeys; i++) {
		k = keys[i]
		if (prefix == "" ? (k ~ /^(bench|pg)\./) : (index(k, prefix) != 1))
			continue
		s = s (first ? "" : ", ") jstr(prefix == "" ? k : substr(k, length(prefix) + 1)) \
			": " jstr(info[k])
		first = 0
	}
	return s "}"
}

END {
	if (!nrun) {
		print "metal-stats.awk: no run lines" >"/dev/stderr"
		exit 1
	}
	ref = info["bench.ref"] == "" ? "lazy" : info["bench.ref"]
	np = order(info["bench.pages"], seenp, pfirst, P)
	nm = order(info["bench.modes"], seenm, mfirst, M)

	print "# bench-metal results"
	print ""
	printf "%s, %s: %s CPUs (%s), kernel %s, %s.\n", info["date"], info["hostname"],
		info["nproc"], info["cpu_model"], info["kernel"], info["postgresql"]
	printf "pgbench -b %s -M %s, %s clients, %s threads, %s s per run (warm-up %s s after each server start), scale %s (fillfactor %s), shared_buffers %s.\n",
		info["bench.script"], info["bench.protocol"], info["bench.clients"],
		info["bench.threads"], info["bench.secs"], info["bench.warmup"],
		info["bench.scale"], info["bench.fillfactor"], info["bench.shared_buffers"]
	printf "%s blocks per page kind (one server start each, restart %s), %s runs of each mode per block, %s order (seed %s); %d runs in %s s.\n",
		info["bench.blocks"], info["bench.restart"], info["bench.reps"], info["bench.order"],
		info["bench.seed"], nrun, info["bench.took_s"]
	print ""
	print "| pages | mode | tps: median [quartiles] | vs " ref ": ratio [95 % CI] | p | hugetlb vs 4k: ratio [95 % CI] | p | latency ms | failed | runs |"
	print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	jc = ""
	nb = 0
	for (i = 1; i <= np; i++) {
		tblock = sprintf("\"%s\"\n", P[i])
		rblock = sprintf("\"%s\"\n", P[i])
		for (j = 1; j <= nm; j++) {
			c = P[i] SUBSEP M[j]
			if (!(c in runs))
				continue
			jref = compare(c, P[i] SUBSEP ref, "vs_ref")
			mref = cmp_md
			if (cmp_ratio >= 0)
				rblock = rblock sprintf("%d %s %.4f %.4f %.4f\n", j - 1, M[j], cmp_ratio, ci_lo, ci_hi)
			else if (M[j] == ref)
				rblock = rblock sprintf("%d %s 1 1 1\n", j - 1, M[j])
			jhp = P[i] == "hugetlb" ? compare(c, "4k" SUBSEP M[j], "vs_4k") : ""
			mhp = P[i] == "hugetlb" ? cmp_md : "- | -"
			fl = nofail[c] ? "-" : failed[c]
			printf "| %s | %s | %s | %s | %s | %s | %s | %d |\n", P[i], M[j], mq(tps[c]),
				mref, mhp, mq(lat[c]), fl, runs[c]
			n = samples(tps[c], arr)
			tblock = tblock sprintf("%d %s %s %s %s\n", j - 1, M[j], quant(arr, n, 0.5),
				quant(arr, n, 0.25), quant(arr, n, 0.75))
			jc = jc (jc == "" ? "" : ",\n") sprintf("    {\"pages\": %s, \"mode\": %s, \"runs\": %d, \"metrics\": {\"tps\": %s, \"latency_ms\": %s, \"failed\": %s}%s%s}",
				jstr(P[i]), jstr(M[j]), runs[c], jstats(tps[c]), jstats(lat[c]),
				nofail[c] ? "null" : failed[c], jref, jhp)
		}
		if (tpsdat != "")
			printf "%s\n\n", tblock >tpsdat
		if (ratiodat != "")
			printf "%s\n\n", rblock >ratiodat
	}
	print ""
	printf "Ratio: median tps of the cell over the median of %s (same pages), or of 4 KiB pages (same mode); 95 %% CI: percentile bootstrap, %d resamples of each cell, seed %d. p: two-sided Mann-Whitney U (`*` p < 0.05; exact without ties up to 25 runs). With 1 run per cell the interval is the ratio itself.\n",
		ref, boots, seed
	print ""
	print "## Machine and settings"
	print ""
	print "| | |"
	print "|---|---|"
	for (i = 1; i <= nkeys; i++) {
		v = info[keys[i]]
		gsub(/\|/, "\\|", v)
		print "| " keys[i] " | " v " |"
	}
	print ""
	print "## Runs, in the order they ran"
	print ""
	print "| # | block | server start | pages | mode | rep | tps | latency ms | failed | s | transactions |"
	print "|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|"
	jr = ""
	for (i = 1; i <= nrun; i++) {
		$0 = run_line[i]
		printf "| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", i, getv("block"),
			getv("start"), getv("pages"), getv("mode"), getv("rep"), getv("tps"),
			getv("lat_ms"), getv("failed"), getv("secs"), getv("txns")
		f = getv("failed")
		jr = jr (jr == "" ? "" : ",\n") sprintf("    {\"n\": %d, \"pages\": %s, \"mode\": %s, \"block\": %s, \"rep\": %s, \"pos\": %s, \"server_start\": %s, \"tps\": %s, \"latency_ms\": %s, \"failed\": %s, \"secs\": %s, \"transactions\": %s}",
			i, jstr(getv("pages")), jstr(getv("mode")), jnum(getv("block")), jnum(getv("rep")),
			jnum(getv("pos")), jnum(getv("start")), getv("tps"), jnum(getv("lat_ms")),
			f ~ /^[0-9]+$/ ? f : "null", jnum(getv("secs")), jnum(getv("txns")))
	}
	printf "{\n  \"date\": %s, \"ref\": %s, \"bootstrap\": {\"resamples\": %d, \"seed\": %d},\n", \
		jstr(info["date"]), jstr(ref), boots, seed >json
	printf "  \"machine\": %s,\n  \"parameters\": %s,\n  \"postgresql_settings\": %s,\n", \
		jsection(""), jsection("bench."), jsection("pg.") >json
	printf "  \"cells\": [\n%s\n  ],\n  \"runs\": [\n%s\n  ]\n}\n", jc, jr >json
}
