package locate_test

import (
	"fmt"

	"bottle/locate"
)

// Claude Code keeps a project's transcripts in a folder named after the
// project's path, every character but letters and digits a dash.
func ExampleProjectDirName() {
	fmt.Println(locate.ProjectDirName("/home/ada/src/weather.app"))
	// Output:
	// -home-ada-src-weather-app
}

// Where bottle finds and keeps things, from the environment it is given.
func ExampleEnv() {
	env := locate.Env{Home: "/home/ada", Getenv: func(k string) string {
		return map[string]string{"CLAUDE_MEM_DATA_DIR": "/data/mem"}[k]
	}}
	fmt.Println(env.ProjectsDir())
	fmt.Println(env.DBPath())
	fmt.Println(env.BottlesDir())
	// Output:
	// /home/ada/.claude/projects
	// /data/mem/claude-mem.db
	// /data/mem/bottles
}
