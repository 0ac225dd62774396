# Owns the benchmark's plot: GPUs allocated per project over time, stacked,
# one panel per system of the run, from report.py's alloc-*.tsv and
# plot.cfg (N projects, CAP GPUs, SYSTEMS).  Run in the report dir:
# gnuplot plot.gp
load 'plot.cfg'
set terminal pngcairo size 1400,500 * words(SYSTEMS) font ",10"
set output 'allocation.png'
set multiplot layout words(SYSTEMS),1 title TITLE
set xlabel 'seconds from the start of the window'
set ylabel 'GPUs allocated'
set yrange [0:CAP * 1.05]
set xrange [0:*]
set key outside right top vertical maxrows 30 font ",8"
set style fill solid 0.9 noborder
set grid ytics
do for [f in SYSTEMS] {
	set title f
	plot for [i = N + 1:2:-1] 'alloc-'.f.'.tsv' using 1:i with filledcurves x1 \
		lc rgb hsv2rgb(i * 0.618 - floor(i * 0.618), 0.75, 0.55 + 0.4 * (i % 2)) title columnhead(i), \
		CAP with lines lc rgb 'black' dt 2 title 'capacity'
}
unset multiplot
