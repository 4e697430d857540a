// Copyright 2020 The Kubernetes Authors.
// SPDX-License-Identifier: Apache-2.0

package validate_test
