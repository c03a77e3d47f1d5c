// WorkerException: how an exception thrown while a DataLoader worker thread fetched a batch
// reaches the thread that iterates (LibTorch's torch::data::WorkerException). Its message
// keeps the original one; original_exception can be rethrown to get the original type.
#pragma once
#include <exception>
#include <string>

#include "ember/core/error.h"

namespace ember::data {

struct WorkerException : public Error {
  explicit WorkerException(std::exception_ptr original);

  std::exception_ptr original_exception;
  std::string message;  // what() as a string, as LibTorch's field
};

}  // namespace ember::data
