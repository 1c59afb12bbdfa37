console.log("todo")
