# scale.gp — time per query against the total vertex count M, after GJK88
# Fig. 4: one panel per question, every method that answers it.  Run by
# `make bench` after build/bench-core has written bench/out/core-scale-*.dat.
set terminal pngcairo size 1500,520 font ",9"
set output "bench/out/core-scale.png"
set datafile missing "nan"
set logscale xy
set format x "10^{%L}"
set xlabel "total vertices M"
set ylabel "median time per query (µs)"
set grid
set key top left font ",7" noenhanced
set multiplot layout 1,3 title "clash vs libccd, FCL, Bullet (make bench; bench/README.md)"
set title "distance (separated, touching)"
stats "bench/out/core-scale-distance.dat" skip 1 nooutput
plot for [i=2:STATS_columns] "bench/out/core-scale-distance.dat" using 1:i with linespoints title columnhead(i)
set title "verdict (all classes)"
stats "bench/out/core-scale-verdict.dat" skip 1 nooutput
plot for [i=2:STATS_columns] "bench/out/core-scale-verdict.dat" using 1:i with linespoints title columnhead(i)
set title "penetration depth (touching, intersecting)"
stats "bench/out/core-scale-depth.dat" skip 1 nooutput
plot for [i=2:STATS_columns] "bench/out/core-scale-depth.dat" using 1:i with linespoints title columnhead(i)
unset multiplot
