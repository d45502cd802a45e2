# SPDX-License-Identifier: GPL-2.0
#
# metal.gp: plot tests/bench/metal-stats.awk's data for bench-metal.sh.
# Left: pgbench tps by preemption mode, one line per page kind (median,
# quartiles as error bars). Right: each mode's tps over the reference
# mode's (same pages) with the bootstrap 95 % interval.
#   gnuplot -e "tpsdat='FILE'; ratiodat='FILE'; png='FILE'; ref='lazy'; nb=N; title='...'" metal.gp
# nb: the number of page kinds (blocks in each data file).
set terminal png size 1280, 520
set output png
set termoption noenhanced
set multiplot layout 1, 2 title title font ',10'
set key top left font ',9'
set xlabel 'preemption mode'
set offsets 0.3, 0.3, 0, 0
set yrange [0:*]
set ylabel 'tps'
set title 'pgbench tps (median, quartiles)'
plot for [i = 0:nb - 1] tpsdat index i using 1:3:4:5:xtic(2) with yerrorlines title columnheader(1)
set ylabel sprintf('tps / tps in %s', ref)
set title sprintf('vs %s, same pages (bootstrap 95 %% CI)', ref)
set yrange [*:*]
set offsets 0.3, 0.3, graph 0.05, graph 0.05
set key top right
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dashtype 2
# the page kinds side by side at each mode (the labels once, at the mode)
plot ratiodat index 0 using 1:(NaN):xtic(2) notitle, \
	for [i = 0:nb - 1] ratiodat index i using ($1 + 0.1 * (i - (nb - 1) / 2.0)):3:4:5 \
	with yerrorbars linetype i + 1 pointtype i + 1 pointsize 1.5 title columnheader(1)
unset multiplot
