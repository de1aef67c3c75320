package toolworld

// valuePools are the values a world's tasks draw from: people, event
// titles, file texts and file names. The classic pools are the ones every
// task of the canonical surface draws from; a varied world draws its own
// subsets of larger pools, so that its people and files are its own.
type valuePools struct {
	people, titles, phrases, files []string
}

// classicPools are the pools of the canonical surface (the generator's
// original lists).
func classicPools() valuePools {
	return valuePools{people: personNames(), titles: eventTitles(), phrases: phrases(), files: fileNames()}
}

// Sizes of a varied world's pools: those of the classic pools, so that
// tasks are as varied within a world as the classic ones.
const (
	worldPeople  = 36
	worldTitles  = 10
	worldPhrases = 16
	worldFiles   = 12
)

// drawPools draws a varied world's pools from the larger lists below.
func drawPools(r *rng) valuePools {
	return valuePools{
		people:  r.shuffled(allPersonNames())[:worldPeople],
		titles:  r.shuffled(allEventTitles())[:worldTitles],
		phrases: r.shuffled(allPhrases())[:worldPhrases],
		files:   r.shuffled(allFileNames())[:worldFiles],
	}
}

// allPersonNames extends personNames; no name is a file-name stem the
// chained goals use.
func allPersonNames() []string {
	return append(personNames(),
		"Abe", "Bea", "Cal", "Dina", "Eli", "Flo", "Gia", "Hal", "Iris", "Joy",
		"Kim", "Lou", "Mae", "Ned", "Ola", "Pam", "Ray", "Sue", "Ted", "Una",
		"Val", "Walt", "Xena", "Yusuf", "Zack", "Amir", "Bo", "Cy", "Dora", "Emil",
		"Fern", "Gwen", "Hank", "Ivo", "Jill", "Kurt", "Lola", "Milo", "Nora", "Otto",
		"Pete", "Rosa", "Saul", "Tess")
}

func allEventTitles() []string {
	return append(eventTitles(), "brunch", "yoga", "meeting", "golf", "movie", "run",
		"study", "swim", "dentist", "party", "concert", "picnic")
}

func allPhrases() []string {
	return append(phrases(), "feed cat", "mow lawn", "buy eggs", "call plumber", "fix sink",
		"pack bags", "cancel gym", "order pizza", "buy stamps", "paint fence", "sort mail",
		"charge phone", "book dentist", "iron shirts", "visit gran", "plan trip")
}

// allFileNames extends fileNames with names no chained goal uses.
func allFileNames() []string {
	return append(fileNames(), "journal.txt", "errands.txt", "scratch.txt", "goals.txt",
		"shopping.txt", "readme.txt", "thoughts.txt", "week.txt", "chores.txt", "books.txt",
		"trip.txt", "recipes.txt")
}
