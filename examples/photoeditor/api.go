package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

// api is the service's HTTP surface:
//
//	POST /jobs                 create a job (Idempotency-Key header) and its work
//	GET  /jobs/{id}            one job
//	GET  /users/{id}/jobs      a user's jobs, newest first (?limit=, ?cursor=)
type api struct {
	jobs *jobs.Store // with its work queue: Create queues the job's task
}

func (a *api) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /jobs", a.createJob)
	mux.HandleFunc("GET /jobs/{id}", a.getJob)
	mux.HandleFunc("GET /users/{id}/jobs", a.listJobs)
	return mux
}

// createRequest is POST /jobs's body.
type createRequest struct {
	UserID           string `json:"userId"`
	FileType         string `json:"fileType"`
	FileSize         int64  `json:"fileSize"`
	OriginalFileName string `json:"originalFileName"`
	Provider         string `json:"provider"`
}

// createJob stores the job, keyed by the request's Idempotency-Key: a
// retried POST returns the job the first one created (200 instead of 201).
// The store queues the job's work in the same transaction as the job, so
// no crash leaves a job without its task.
func (a *api) createJob(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "body: "+err.Error(), http.StatusBadRequest)
		return
	}
	in := jobs.CreateInput{
		UserID: req.UserID, FileType: req.FileType, FileSize: req.FileSize,
		OriginalFileName: req.OriginalFileName, Provider: req.Provider,
		S3TempKey:      "uploads/" + req.OriginalFileName,
		IdempotencyKey: r.Header.Get("Idempotency-Key"),
	}
	job, created, err := a.jobs.Create(r.Context(), in)
	switch {
	case errors.Is(err, jobs.ErrIdempotencyMismatch):
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	case errors.Is(err, table.ErrInvalidInput):
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, job)
}

func (a *api) getJob(w http.ResponseWriter, r *http.Request) {
	job, err := a.jobs.Get(r.Context(), r.PathValue("id"))
	switch {
	case errors.Is(err, jobs.ErrNotFound):
		http.Error(w, err.Error(), http.StatusNotFound)
	case errors.Is(err, table.ErrInvalidInput):
		http.Error(w, err.Error(), http.StatusBadRequest)
	case err != nil:
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
	default:
		writeJSON(w, http.StatusOK, job)
	}
}

// listPage is GET /users/{id}/jobs's answer.
type listPage struct {
	Items []jobs.Job `json:"items"`
	Next  string     `json:"next,omitempty"`
}

func (a *api) listJobs(w http.ResponseWriter, r *http.Request) {
	limit := 0
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			http.Error(w, "limit: "+err.Error(), http.StatusBadRequest)
			return
		}
		limit = n
	}
	page, err := a.jobs.ByUser(r.PathValue("id"), jobs.Limit(limit)).Page(r.Context(), r.URL.Query().Get("cursor"))
	switch {
	case errors.Is(err, table.ErrInvalidInput), errors.Is(err, table.ErrInvalidCursor):
		http.Error(w, err.Error(), http.StatusBadRequest)
	case err != nil:
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
	default:
		writeJSON(w, http.StatusOK, listPage{Items: page.Items, Next: page.Next})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
