! The four collectives through the Fortran 2008 bindings (`use mpi_f08`), blocking and
! nonblocking, MPI_IN_PLACE included, with the values checked. Prints "preload_f08: ok on P ranks".
program preload_f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 300
  integer :: rank, nprocs, r, i, bad, total
  type(MPI_Request) :: req
  integer, allocatable :: send(:), recv(:)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  allocate(send(n * nprocs), recv(n * nprocs))
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
end program
