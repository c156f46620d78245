// W11 as a whole process: start-up and exit alone, the floor under the other two scripts.
