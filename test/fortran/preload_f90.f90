! The engine's collectives from Fortran (`use mpi`): allgather, alltoall, bcast, barrier and the
! reductions, blocking and nonblocking, MPI_IN_PLACE included, with the values checked: the preload tests run it with TOPOCOLL_STATS=1 to see
! whether the library intercepted the calls. Prints "preload_f90: ok on P ranks" from rank 0.
program preload_f90
  use mpi
  implicit none
  integer, parameter :: n = 500
  integer :: ierr, rank, nprocs, r, i, bad, total, req, reqs(1)
  integer, allocatable :: send(:), recv(:), counts(:)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  allocate(send(n * nprocs), recv(n * nprocs), counts(nprocs))
  bad = 0

  ! allgather: element i of block r is r*1000 + i
  do i = 1, n
    send(i) = rank * 1000 + i
  end do
  recv = -1
  call MPI_ALLGATHER(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call expect_blocks('allgather')
  recv = -1
  call MPI_IALLGATHER(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, MPI_COMM_WORLD, req, ierr)
  call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
  call expect_blocks('iallgather')
  recv = -1
  recv(rank * n + 1 : rank * n + n) = send(1:n)
  call MPI_ALLGATHER(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call expect_blocks('allgather in place')

  ! alltoall: element i of the block from r to me is r*1000 + rank*10 + i
  do r = 0, nprocs - 1
    do i = 1, n
      send(r * n + i) = rank * 1000 + r * 10 + i
    end do
  end do
  recv = -1
  call MPI_ALLTOALL(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call expect_alltoall('alltoall')
  recv = -1
  call MPI_IALLTOALL(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_WAITALL(1, reqs, MPI_STATUSES_IGNORE, ierr)
  call expect_alltoall('ialltoall')

  ! bcast from the last rank
  recv = -1
  if (rank == nprocs - 1) recv(1:n) = (/ (7 * i, i = 1, n) /)
  call MPI_BCAST(recv, n, MPI_INTEGER, nprocs - 1, MPI_COMM_WORLD, ierr)
  if (any(recv(1:n) /= (/ (7 * i, i = 1, n) /))) call failed('bcast')
  recv = -1
  if (rank == 0) recv(1:n) = (/ (5 * i, i = 1, n) /)
  call MPI_IBCAST(recv, n, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
  if (any(recv(1:n) /= (/ (5 * i, i = 1, n) /))) call failed('ibcast')

  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call MPI_IBARRIER(MPI_COMM_WORLD, req, ierr)
  call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)

  ! The reductions: element i of rank r's operand is r*7 + i, so element i of the sum is
  ! 7 p(p-1)/2 + p i. reduce_scatter's parts are n, n-1, n-2, ... elements.
  do i = 1, n * nprocs
    send(i) = rank * 7 + i
  end do
  recv = -1
  call MPI_ALLREDUCE(send, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call expect_sum('allreduce', 0, n)
  recv(1:n) = send(1:n)
  call MPI_IALLREDUCE(MPI_IN_PLACE, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
  call expect_sum('iallreduce in place', 0, n)
  recv = -1
  call MPI_REDUCE(send, recv, n, MPI_INTEGER, MPI_SUM, nprocs - 1, MPI_COMM_WORLD, ierr)
  if (rank == nprocs - 1) call expect_sum('reduce', 0, n)
  recv = -1
  call MPI_IREDUCE(send, recv, n, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
  if (rank == 0) call expect_sum('ireduce', 0, n)
  recv = -1
  call MPI_REDUCE_SCATTER_BLOCK(send, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call expect_sum('reduce_scatter_block', rank * n, n)
  recv = -1
  call MPI_IREDUCE_SCATTER_BLOCK(send, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
  call expect_sum('ireduce_scatter_block', rank * n, n)
  counts = (/ (n - r, r = 0, nprocs - 1) /)
  recv = -1
  call MPI_REDUCE_SCATTER(send, recv, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call expect_sum('reduce_scatter', sum(counts(1:rank)), counts(rank + 1))
  recv = -1
  call MPI_IREDUCE_SCATTER(send, recv, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
  call expect_sum('ireduce_scatter', sum(counts(1:rank)), counts(rank + 1))

  call MPI_ALLREDUCE(bad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a,i0,a)', 'preload_f90: ok on ', nprocs, ' ranks'
    else
      print '(a,i0,a)', 'preload_f90: FAILED on ', nprocs, ' ranks'
    end if
  end if
  call MPI_FINALIZE(ierr)
  if (total /= 0) stop 1

contains

  subroutine failed(what)
    character(*), intent(in) :: what
    bad = bad + 1
    print '(a,i0,2a)', 'FAIL rank ', rank, ': ', what
  end subroutine

  subroutine expect_blocks(what)
    character(*), intent(in) :: what
    do r = 0, nprocs - 1
      if (any(recv(r * n + 1 : r * n + n) /= (/ (r * 1000 + i, i = 1, n) /))) call failed(what)
    end do
  end subroutine

  subroutine expect_alltoall(what)
    character(*), intent(in) :: what
    do r = 0, nprocs - 1
      if (any(recv(r * n + 1 : r * n + n) /= (/ (r * 1000 + rank * 10 + i, i = 1, n) /))) call failed(what)
    end do
  end subroutine
  ! recv(1:count) must hold elements first+1 .. first+count of the sum.
  subroutine expect_sum(what, first, count)
    character(*), intent(in) :: what
    integer, intent(in) :: first, count
    if (any(recv(1:count) /= (/ (7 * nprocs * (nprocs - 1) / 2 + nprocs * (first + i), i = 1, count) /))) call failed(what)
  end subroutine

end program
