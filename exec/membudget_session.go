package exec

// workMem is the session's work_mem in bytes (0: unbounded).
func (s *Session) workMem() int64 {
	v, _ := s.settings.Get("work_mem")
	kb, ok := parseKB(v)
	if !ok {
		return 0
	}
	return int64(kb) * 1024
}
