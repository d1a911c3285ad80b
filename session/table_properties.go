package session

import (
	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/maintenance"
	"github.com/magmalake/magmalake/pgerr"
)

// checkProperties rejects values of the properties magmalake acts on that
// it would otherwise silently ignore.
func checkProperties(props map[string]string) error {
	for _, k := range []string{"write.delete.mode", "write.update.mode", "write.merge.mode"} {
		if v, ok := props[k]; ok && v != "copy-on-write" && v != "merge-on-read" {
			return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for table property %q: %q (copy-on-write or merge-on-read)", k, v)
		}
	}
	for _, k := range []string{deletes.PropRewriteRatio, maintenance.PropVacuumRatioThreshold} {
		if v, ok := props[k]; ok {
			if _, err := maintenance.ParseRatio(v); err != nil {
				return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for table property %q: %q (a number from 0 to 1)", k, v)
			}
		}
	}
	if v, ok := props[maintenance.PropVacuumSizeThreshold]; ok {
		if _, err := maintenance.ParseByteSize(v); err != nil {
			return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for table property %q: %q (a size such as '128MB')", maintenance.PropVacuumSizeThreshold, v)
		}
	}
	if v, ok := props[maintenance.PropAutoVacuumEnabled]; ok && v != "true" && v != "false" {
		return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for table property %q: %q (true or false)", maintenance.PropAutoVacuumEnabled, v)
	}
	return nil
}
