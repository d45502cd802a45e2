# SPDX-License-Identifier: GPL-2.0
#
# stats-lib.awk: the statistics that tests/bench/stats.awk (make bench
# parts a-e) and tests/bench/mech-stats.awk (the mechanism part) share:
# sorting, quantiles, a two-sided Mann-Whitney U test (mwu: exact null
# distribution when there are no ties and both samples have at most 25
# values, else the normal approximation with tie and continuity
# corrections), number formatting and JSON strings. Load it first:
#   awk -f stats-lib.awk -f stats.awk ...

function isort(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
}

# quantile of sorted a[1..n], linear interpolation (type 7)
function quant(a, n, p,    h, lo) {
	if (n == 0)
		return 0
	h = (n - 1) * p + 1
	lo = int(h)
	if (lo >= n)
		return a[n]
	return a[lo] + (h - lo) * (a[lo + 1] - a[lo])
}

# split the space-separated samples of s into sorted arr, return n
function samples(s, arr,    n) {
	n = split(s, arr, " ")
	isort(arr, n)
	return n
}

function erfc(x,    t, z, r) {
	z = x < 0 ? -x : x
	t = 1 / (1 + 0.5 * z)
	r = t * exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + \
	    t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + \
	    t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
	return x >= 0 ? r : 2 - r
}

# number of arrangements of m x's and n y's with U (x before y pairs) == u
function ucount(m, n, u,    k, v) {
	if (u < 0)
		return 0
	if (m == 0 || n == 0)
		return u == 0 ? 1 : 0
	k = m SUBSEP n SUBSEP u
	if (k in memo)
		return memo[k]
	# the largest value is an x (it beats all n y's) or a y
	v = ucount(m - 1, n, u - n) + ucount(m, n - 1, u)
	memo[k] = v
	return v
}

function choose(n, k,    r, i) {
	r = 1
	for (i = 1; i <= k; i++)
		r = r * (n - k + i) / i
	return r
}

# two-sided p value of the Mann-Whitney U test between strings sa and sb;
# sets mw_u and mw_method
function mwu(sa, sb,    a, b, na, nb, all, tag, n, i, j, k, r, rank, ties, t, \
		ra, u1, umin, mu, sd, z, cum, tot, p) {
	na = split(sa, a, " ")
	nb = split(sb, b, " ")
	if (na < 2 || nb < 2) {
		mw_u = "-"
		mw_method = "n/a"
		return -1
	}
	n = 0
	for (i = 1; i <= na; i++) { all[++n] = a[i] + 0; tag[n] = 1 }
	for (i = 1; i <= nb; i++) { all[++n] = b[i] + 0; tag[n] = 2 }
	# sort values with their tags
	for (i = 2; i <= n; i++) {
		t = all[i]; k = tag[i]
		for (j = i - 1; j >= 1 && all[j] > t; j--) {
			all[j + 1] = all[j]; tag[j + 1] = tag[j]
		}
		all[j + 1] = t; tag[j + 1] = k
	}
	ties = 0
	i = 1
	while (i <= n) {
		j = i
		while (j < n && all[j + 1] == all[i])
			j++
		r = (i + j) / 2
		for (k = i; k <= j; k++)
			rank[k] = r
		t = j - i + 1
		if (t > 1)
			ties += t * t * t - t
		i = j + 1
	}
	ra = 0
	for (i = 1; i <= n; i++)
		if (tag[i] == 1)
			ra += rank[i]
	u1 = ra - na * (na + 1) / 2
	umin = u1 < na * nb - u1 ? u1 : na * nb - u1
	mw_u = u1
	if (ties == 0 && na <= 25 && nb <= 25) {
		mw_method = "exact"
		cum = 0
		for (k = 0; k <= umin; k++)
			cum += ucount(na, nb, k)
		tot = choose(na + nb, na)
		p = 2 * cum / tot
		return p > 1 ? 1 : p
	}
	mw_method = "normal"
	mu = na * nb / 2
	sd = sqrt(na * nb / 12 * ((n + 1) - ties / (n * (n - 1))))
	if (sd == 0)
		return 1
	z = (umin - mu + 0.5) / sd
	if (z > 0)
		z = 0
	p = erfc(-z / sqrt(2))
	return p > 1 ? 1 : p
}

function fmt(x) {
	if (x >= 100)
		return sprintf("%.0f", x)
	if (x >= 10)
		return sprintf("%.1f", x)
	return sprintf("%.3g", x)
}

function jstr(s) {
	gsub(/\\/, "\\\\", s)
	gsub(/"/, "\\\"", s)
	return "\"" s "\""
}

