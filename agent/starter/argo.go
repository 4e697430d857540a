package starter

// argoApps proposes one app per Argo CD Application (argo.go's
// translation comes with its roles from sync waves).
func (g *gitops) argoApps() ([]App, []string) {
	var untranslated []string
	for _, o := range g.applicationSets {
		untranslated = append(untranslated, o.String()+": ApplicationSets are not translated yet")
	}
	for _, o := range g.applications {
		untranslated = append(untranslated, o.String()+": Applications are not translated yet")
	}
	return nil, untranslated
}
