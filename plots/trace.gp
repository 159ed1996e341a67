# Layer-1 trace: power of every rail over time.
# usage: gnuplot -c plots/trace.gp TRACE.csv OUT.png [TITLE]
# TRACE.csv is powprof's trace format: t_s,<rail>_w,...
if (ARGC < 2) { print "usage: gnuplot -c plots/trace.gp TRACE.csv OUT.png [TITLE]"; exit status 2 }
set datafile separator ","
set terminal pngcairo size 1000,560 font "sans,11"
set output ARG2
set title (ARGC >= 3 ? ARG3 : ARG1) noenhanced
set xlabel "time [s]"
set ylabel "power [W]"
set grid
set key outside right top noenhanced
set yrange [0:*]
stats ARG1 skip 1 nooutput
ncol = STATS_columns
plot for [c=2:ncol] ARG1 using 1:c with lines linewidth 2 title columnheader(c)
