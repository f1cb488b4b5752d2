// An L bracket with two bolt holes and a rounded gusset, as a CAD user
// would model it: the fixture tests/check_mesh_defects.c reads.
$fn = 32;
difference() {
	union() {
		cube([40, 30, 4]);
		cube([4, 30, 30]);
		hull() {
			translate([4, 13, 4]) cube([16, 4, 0.01]);
			translate([4, 13, 4]) cube([0.01, 4, 16]);
		}
	}
	for (y = [8, 22]) {
		translate([28, y, -1]) cylinder(d = 6, h = 6);
		translate([-1, y, 20]) rotate([0, 90, 0]) cylinder(d = 6, h = 6);
	}
}
