# SPDX-License-Identifier: GPL-2.0
#
# mechanism.gp: plot tests/bench/mech-stats.awk's data, one panel per arch x
# vCPUs: where the lock holder was scheduled out, per million critical
# sections, 4 KiB shmem (the case huge pages avoid).
#   gnuplot -e "dat='FILE'; png='FILE'; titles='ARCH/NvCPU ...'" mechanism.gp
nb = words(titles)
set terminal png size 640 * nb, 520
set output png
set termoption noenhanced
set multiplot layout 1, nb
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.7
set key top left font ',8'
set ylabel 'holder scheduled out per million sections'
set xtics rotate by -40 font ',8'
do for [b = 0:nb - 1] {
	set title word(titles, b + 1)
	plot for [i = 2:5] dat index b using i:xtic(1) title columnheader(i)
}
unset multiplot
