! The engine's collectives (allgather, alltoall, bcast, barrier, the reductions) through the
! Fortran 2008 bindings (`use mpi_f08`), blocking and nonblocking, MPI_IN_PLACE included, with the values checked. Prints "preload_f08: ok on P ranks".
program preload_f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 300
  integer :: rank, nprocs, r, i, bad, total
  type(MPI_Request) :: req
  integer, allocatable :: send(:), recv(:), counts(:)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  allocate(send(n * nprocs), recv(n * nprocs), counts(nprocs))
  bad = 0

  send(1:n) = (/ (rank * 1000 + i, i = 1, n) /)
  recv = -1
  call MPI_Allgather(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, MPI_COMM_WORLD)
  call expect_blocks('allgather')
  recv = -1
  recv(rank * n + 1 : rank * n + n) = send(1:n)
  call MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, n, MPI_INTEGER, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call expect_blocks('iallgather in place')

  do r = 0, nprocs - 1
    send(r * n + 1 : r * n + n) = (/ (rank * 1000 + r * 10 + i, i = 1, n) /)
  end do
  recv = -1
  call MPI_Alltoall(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, MPI_COMM_WORLD)
  call expect_alltoall('alltoall')
  recv = -1
  call MPI_Ialltoall(send, n, MPI_INTEGER, recv, n, MPI_INTEGER, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call expect_alltoall('ialltoall')

  recv = -1
  if (rank == nprocs - 1) recv(1:n) = (/ (7 * i, i = 1, n) /)
  call MPI_Bcast(recv, n, MPI_INTEGER, nprocs - 1, MPI_COMM_WORLD)
  if (any(recv(1:n) /= (/ (7 * i, i = 1, n) /))) call failed('bcast')
  recv = -1
  if (rank == 0) recv(1:n) = (/ (5 * i, i = 1, n) /)
  call MPI_Ibcast(recv, n, MPI_INTEGER, 0, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (any(recv(1:n) /= (/ (5 * i, i = 1, n) /))) call failed('ibcast')

  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Ibarrier(MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)

  ! The reductions: element i of rank r's operand is r*7 + i, so element i of the sum is
  ! 7 p(p-1)/2 + p i. reduce_scatter's parts are n, n-1, n-2, ... elements.
  do i = 1, n * nprocs
    send(i) = rank * 7 + i
  end do
  recv = -1
  call MPI_Allreduce(send, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call expect_sum('allreduce', 0, n)
  recv(1:n) = send(1:n)
  call MPI_Iallreduce(MPI_IN_PLACE, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call expect_sum('iallreduce in place', 0, n)
  recv = -1
  call MPI_Reduce(send, recv, n, MPI_INTEGER, MPI_SUM, nprocs - 1, MPI_COMM_WORLD)
  if (rank == nprocs - 1) call expect_sum('reduce', 0, n)
  recv = -1
  call MPI_Ireduce(send, recv, n, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (rank == 0) call expect_sum('ireduce', 0, n)
  recv = -1
  call MPI_Reduce_scatter_block(send, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call expect_sum('reduce_scatter_block', rank * n, n)
  recv = -1
  call MPI_Ireduce_scatter_block(send, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call expect_sum('ireduce_scatter_block', rank * n, n)
  counts = (/ (n - r, r = 0, nprocs - 1) /)
  recv = -1
  call MPI_Reduce_scatter(send, recv, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call expect_sum('reduce_scatter', sum(counts(1:rank)), counts(rank + 1))
  recv = -1
  call MPI_Ireduce_scatter(send, recv, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call expect_sum('ireduce_scatter', sum(counts(1:rank)), counts(rank + 1))

  call MPI_Allreduce(bad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (total == 0) then
      print '(a,i0,a)', 'preload_f08: ok on ', nprocs, ' ranks'
    else
      print '(a,i0,a)', 'preload_f08: FAILED on ', nprocs, ' ranks'
    end if
  end if
  call MPI_Finalize()
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
