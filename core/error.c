/*
 * error.c — names for the core's negative error codes (clash.h).
 */
#include "clash.h"

const char *clash_strerror(int err)
{
	switch (err) {
	case CLASH_OK: return "success";
	case CLASH_EINVAL: return "invalid argument";
	case CLASH_EDIM: return "dimension out of range or not the same for both shapes";
	case CLASH_EEMPTY: return "shape has no vertices";
	case CLASH_ERADIUS: return "radius must be a finite number >= 0";
	case CLASH_EQUAT: return "rotation is not a unit quaternion of a 3-D shape";
	case CLASH_ESINGULAR: return "pose matrix is singular or not affine";
	case CLASH_ERANGE: return "coordinate not finite, or result out of the range of double";
	case CLASH_EWARM: return "warm-start vertex index out of range";
	case CLASH_ENOTSUP: return "not supported by this method for this input";
	case CLASH_ELIMIT: return "compound shape nested too deeply or with too many parts";
	case CLASH_ENOMEM: return "out of memory";
	case CLASH_ECANCELED: return "the query was cancelled by its caller";
	}
	return "unknown error";
}
